#!/usr/bin/env python3
"""check-directions.py LIB_DIR: every #include "..." or <...> in lib/ must point to a folder its own folder may depend on.

The folders form layers (docs/architecture.md, docs/fabrics.md); an include that runs against the allowed direction
is listed with the file and line, and the check fails. An include names its folder ("fabrics/core/X.hpp",
"common/X.hpp") or is a bare file name, which is its own folder's, or else the one library folder that holds a file of
that name (an include path a library exports); a system header matches none and is passed over."""
import pathlib
import re
import sys

# Folder -> the folders it may include (its own always). Read top to bottom: nothing includes upwards.
ALLOWED = {
    "common": set(),
    "media": {"common"},
    "signing": {"common"},
    "http": {"common"},
    "auth": {"common", "http"},
    "directory": {"common", "http", "signing"},
    "nmos": {"common", "http", "auth", "signing"},
    "device": {"common"},
    "device/cuda": {"common", "device"},
    "flow": {"common", "device"},
    "patterns": {"common", "media", "client"},
    "fabrics/ticket": {"common"},
    "fabrics/protocol": {"common", "fabrics/ticket"},
    "fabrics/core": {"common", "signing", "fabrics/protocol", "fabrics/ticket"},
    "fabrics/transport": {"common", "fabrics/core", "fabrics/protocol", "fabrics/ticket"},
    "fabrics/backends/ofi": {"common", "fabrics/transport", "fabrics/core", "fabrics/protocol", "fabrics/ticket"},
    "fabrics/backends/ucx": {"common", "fabrics/transport", "fabrics/core", "fabrics/protocol", "fabrics/ticket"},
    "fabrics/api": {"common", "signing", "fabrics/core", "fabrics/protocol", "fabrics/ticket", "fabrics/transport"},
    "client": {"common"},
    "bridge": {"common", "client", "directory"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]', re.M)


def folder_of(path, lib):
    relative = path.parent.relative_to(lib).as_posix()
    # The deepest folder of the table that holds the file.
    candidates = [name for name in ALLOWED if relative == name or relative.startswith(name + "/")]
    return max(candidates, key=len) if candidates else None


GUIDE_LINE = re.compile(r"^May include: (.*)\.$", re.M)


def guide_problems(lib):
    """Each folder of the table has a README.md whose "May include:" line names exactly the folders the table allows."""
    problems = []
    for folder, allowed in sorted(ALLOWED.items()):
        guide = lib / folder / "README.md"
        if not guide.exists():
            problems.append(f"{folder}/README.md: missing (a short guide: what lives here, what it may include)")
            continue
        match = GUIDE_LINE.search(guide.read_text(encoding="utf-8"))
        named = set(re.findall(r"`([^`]+)`", match.group(1))) if match else None
        if match and match.group(1) == "nothing of `lib/`":
            named = set()
        if named != allowed:
            problems.append(f"{folder}/README.md: 'May include' names {sorted(named) if named is not None else 'nothing'}, "
                            f"the table allows {sorted(allowed)}")
    return problems


def main():
    lib = pathlib.Path(sys.argv[1]).resolve()
    sources = [p for p in lib.rglob("*") if p.suffix in {".cpp", ".hpp", ".h", ".cu"}]
    by_name = {}
    for source in sources:
        by_name.setdefault(source.name, set()).add(folder_of(source, lib))
    problems = []
    unknown = sorted({p.parent.relative_to(lib).as_posix() for p in sources if folder_of(p, lib) is None})
    for source in sorted(sources):
        own = folder_of(source, lib)
        if own is None:
            continue
        text = source.read_text(encoding="utf-8", errors="replace")
        for match in INCLUDE.finditer(text):
            included = match.group(1)
            line = text.count("\n", 0, match.start()) + 1
            if "/" in included:
                target = folder_of(lib / included, lib)
                if target is None:
                    continue
            elif (source.parent / included).exists():
                continue
            else:
                owners = by_name.get(included, set())
                if len(owners) != 1:
                    continue
                target = next(iter(owners))
            if target != own and target not in ALLOWED[own]:
                problems.append(f"{source.relative_to(lib)}:{line}: {own} includes {included} ({target})")
    if unknown:
        print("folders the direction table does not know (add them to check-directions.py):")
        print("\n".join(unknown))
    if problems:
        print("includes against the allowed direction:")
        print("\n".join(problems))
    guides = guide_problems(lib)
    if guides:
        print("folder guides that do not match the table:")
        print("\n".join(guides))
    if unknown or problems or guides:
        return 1
    print(f"lib/: {len(sources)} sources, every include runs in an allowed direction, {len(ALLOWED)} folder guides match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
