/** A condition under which the hook prints nothing and logs one line (`hook.log`), as any failure does. */
export class FailOpen extends Error {}
