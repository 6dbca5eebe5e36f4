# Python's ast as the oracle of FastAPI/Flask routes declared in a module: decorators @X.<verb>("path") or
# @X.route/api_route("path", methods=[...]) on functions, with X = APIRouter(prefix=...)/Blueprint(url_prefix=...) in
# the same module. Prints one "METHOD path" per line, per file.
import ast, json, re, sys
VERBS = {"get", "post", "put", "patch", "delete", "head", "options"}
def template(p):
    p = p if p.startswith("/") else "/" + p
    p = re.sub(r"<(?:[a-z_]+:)?(\w+)>", r"{\1}", p)
    p = re.sub(r"/+", "/", p)
    if len(p) > 1 and p.endswith("/"): p = p[:-1]
    return p
def join(a, b):
    a = a.strip("/"); b = b.lstrip("/")
    return "/" + "/".join(x for x in (a, b) if x)
out = {}
for f in sys.argv[1:]:
    try: tree = ast.parse(open(f).read())
    except Exception: continue
    text = open(f).read()
    if not re.search(r"^\s*(from|import)\s+(fastapi|flask|starlette)\b", text, re.M): continue
    prefixes = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and node.value.func.id in ("APIRouter", "Blueprint"):
            for kw in node.value.keywords:
                if kw.arg in ("prefix", "url_prefix") and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    for t in node.targets:
                        if isinstance(t, ast.Name): prefixes[t.id] = kw.value.value
    routes = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)): continue
        for d in node.decorator_list:
            if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and isinstance(d.func.value, ast.Name)): continue
            if not d.args or not isinstance(d.args[0], ast.Constant) or not isinstance(d.args[0].value, str): continue
            recv, attr, path = d.func.value.id, d.func.attr, d.args[0].value
            full = template(join(prefixes.get(recv, ""), path))
            if attr in VERBS: routes.add(f"{attr.upper()} {full}")
            elif attr in ("route", "api_route"):
                methods = ["GET"]
                for kw in d.keywords:
                    if kw.arg == "methods" and isinstance(kw.value, (ast.List, ast.Tuple)):
                        methods = [e.value.upper() for e in kw.value.elts if isinstance(e, ast.Constant)]
                for m in methods: routes.add(f"{m} {full}")
    out[f] = sorted(routes)
print(json.dumps(out))
