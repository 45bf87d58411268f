"""MkDocs hook: links from a page to a file of the repository outside docs/ (a JSON Schema, an example DAG) work on
GitHub; in the site they would point nowhere. Each such file joins the site under source/ (so MkDocs checks the link
like any other) and the link is rewritten to it: the site, and the archive's docs/, is whole. A link to a folder or
to a Markdown file of the repository (README.md) becomes its text and the path. A link to something the repository
lacks fails the build."""
import os
import posixpath
import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

LINK = re.compile(r"\[([^\]]*)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def _outside(config, src_uri, target):
    """For a link's target outside docs/: ("file", repository-relative path) or ("folder", path); else None."""
    if "://" in target or target.startswith(("mailto:", "/")):
        return None
    docs = os.path.abspath(config["docs_dir"])
    repo = os.path.dirname(docs)
    resolved = os.path.normpath(os.path.join(docs, posixpath.dirname(src_uri), target))
    if resolved == docs or resolved.startswith(docs + os.sep):
        return None  # a page or image of the docs: MkDocs checks it
    relative = os.path.relpath(resolved, repo).replace(os.sep, "/")
    if relative.startswith("..") or not os.path.exists(resolved):
        raise PluginError(f"{src_uri}: link {target}: {relative} is not in the repository")
    if os.path.isdir(resolved) or relative.endswith(".md"):
        # a folder, or a page written for the repository (its links are the repository's): named, not copied
        return "text", relative + ("/" if os.path.isdir(resolved) else "")
    return "file", relative


def on_files(files, config):
    repo = os.path.dirname(os.path.abspath(config["docs_dir"]))
    wanted = set()
    for f in files.documentation_pages():
        with open(f.abs_src_path, encoding="utf-8") as md:
            for m in LINK.finditer(md.read()):
                found = _outside(config, f.src_uri, m.group(2))
                if found and found[0] == "file":
                    wanted.add(found[1])
    for relative in sorted(wanted):
        files.append(File.generated(config, "source/" + relative, abs_src_path=os.path.join(repo, relative)))
    here = os.path.dirname(os.path.abspath(__file__))
    files.append(File.generated(config, "offline-search.js", abs_src_path=os.path.join(here, "offline-search.js")))
    return files


def on_post_build(config):
    """search/search_index.js: the search index as a script, for offline-search.js on pages opened from disk."""
    search = os.path.join(config["site_dir"], "search")
    with open(os.path.join(search, "search_index.json"), encoding="utf-8") as index:
        data = index.read()
    with open(os.path.join(search, "search_index.js"), "w", encoding="utf-8") as script:
        script.write("window.sluiceSearchIndex = " + data + ";\n")


def on_page_markdown(markdown, page, config, files):
    up = "../" * page.file.src_uri.count("/")

    def rewrite(m):
        found = _outside(config, page.file.src_uri, m.group(2))
        if not found:
            return m.group(0)
        kind, path = found
        if kind == "text":
            return f"{m.group(1)} (`{path}` in the repository)"
        return f"[{m.group(1)}]({up}source/{path}{m.group(3) or ''})"

    return LINK.sub(rewrite, markdown)
