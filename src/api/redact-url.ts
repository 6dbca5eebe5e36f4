/**
 * A URL fit to print or log: any user name and password in it (`http://user:pw@host`) replaced by `***`.
 * A text that is not a URL has a `//user:pw@` part masked all the same.
 */
export function redactUserinfo(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === "" && u.password === "") return url;
    u.username = "***";
    u.password = "";
    return u.toString().replace(/\/$/, url.endsWith("/") ? "/" : "");
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, "//***@");
  }
}
