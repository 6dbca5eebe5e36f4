/** Every folder that holds one of `paths` (POSIX, relative): the folders a walk must enter for them. */
export function ancestorsOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let i = p.lastIndexOf("/"); i > 0; i = p.lastIndexOf("/", i - 1)) {
      const d = p.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return dirs;
}
