#!/usr/bin/env python3
"""Checks that chunked-array's top-level modules import only floors below them.

lib.rs declares the floors bottom to top (ARCHITECTURE.md describes them); a
`crate::<floor>` path in a module (outside its `#[cfg(test)]` part) naming a
floor declared after it is an upward import. Prints each and exits 1 if any."""
import os
import re
import sys

src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "chunked-array", "src")
lib = open(os.path.join(src, "lib.rs"), encoding="utf-8").read()
order = re.findall(r"(?m)^(?:pub(?:\([a-z]+\))? )?mod ([a-z_]+);", lib)


def files_of(module):
    folder = os.path.join(src, module)
    if os.path.isdir(folder):
        return [os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs if f.endswith(".rs")]
    return [os.path.join(src, module + ".rs")]


upward = []
for rank, module in enumerate(order):
    for path in files_of(module):
        text = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
        cut = text.find("#[cfg(test)]")
        text = text if cut < 0 else text[:cut]
        named = set(re.findall(r"(?<!\$)crate::([a-z_]+)", text))
        # Root re-exports (crate::Array) hide which floor they come from.
        upward += [f"{os.path.relpath(path, src)}: crate::{n} names a root re-export; use its floor's path"
                   for n in sorted(set(re.findall(r"(?<!\$)crate::([A-Z][A-Za-z0-9_]*)", text)))]
        for group in re.findall(r"(?<!\$)crate::\{([^}]*)\}", text):
            named.update(item.strip().split("::")[0] for item in group.split(","))
        for floor in sorted(named):
            if floor in order and order.index(floor) > rank:
                upward.append(f"{os.path.relpath(path, src)} imports crate::{floor}, a floor above {module}")
for line in upward:
    print(line)
print(f"upward imports between floors: {len(upward)}")
sys.exit(1 if upward else 0)
