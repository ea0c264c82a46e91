#!/usr/bin/env python3
"""Lists the public items of the library crates whose docs have no example.

Reads the HTML that `cargo doc --workspace --no-deps` writes to target/doc, so
"public" is what rustdoc shows a user: items reachable from a crate's root,
inherent methods and trait methods; trait implementations' methods, struct
fields, enum variants, constants, statics and type aliases need none (as
rustdoc's own missing_doc_code_examples lint counts). An example is a Rust code
block that rustdoc renders as one (and runs as a doctest).

Usage: check_doc_examples.py [TARGET_DOC_DIR]. Prints each item without an
example and the count per crate; exits 1 when any item lacks one."""
import os
import re
import sys

CRATES = ["chunked_array", "chunked_linalg", "chunked_gpu", "chunked_distributed"]
ITEM_PAGES = ("struct.", "enum.", "trait.", "fn.", "macro.", "union.")
EXAMPLE = "rust-example-rendered"
SECTION = re.compile(r'<section id="(?:method|tymethod)\.([A-Za-z0-9_]+)"')


def region(html, start_id, end_markers):
    """The part of a page from the element with id `start_id` to the first of
    `end_markers` after it (or the end)."""
    start = html.find(f'id="{start_id}"')
    if start < 0:
        return ""
    ends = [e for e in (html.find(m, start + 1) for m in end_markers) if e > 0]
    return html[start : min(ends) if ends else len(html)]


def methods_without_example(html):
    # Inherent methods: before the trait implementations. A trait's own
    # required and provided methods: before its implementations (on foreign
    # types, then the implementors), whose methods the trait's docs cover.
    parts = [
        region(html, "implementations-list", ['id="trait-implementations"', 'id="synthetic-implementations"']),
        region(html, "required-methods", ['id="provided-methods"', 'id="foreign-impls"', 'id="implementors"', 'id="dyn-compatibility"']),
        region(html, "provided-methods", ['id="foreign-impls"', 'id="implementors"', 'id="dyn-compatibility"']),
    ]
    missing = []
    for part in parts:
        pieces = SECTION.split(part)
        # pieces: [before, name1, body1, name2, body2, ...]
        for name, body in zip(pieces[1::2], pieces[2::2]):
            if EXAMPLE not in body:
                missing.append(name)
    return missing


def top_doc_has_example(html):
    top = region(html, "main-content", ['id="implementations"', '<h2 id="', 'id="fields"', 'id="variants"'])
    return EXAMPLE in top


def check_crate(doc_dir, crate):
    missing = []
    root = os.path.join(doc_dir, crate)
    for folder, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".html") or not f.startswith(ITEM_PAGES):
                continue
            path = os.path.join(folder, f)
            html = open(path, encoding="utf-8").read()
            if 'http-equiv="refresh"' in html:
                continue  # a redirect from an item's private path to its public one
            module = os.path.relpath(folder, doc_dir).replace(os.sep, "::")
            item = f[: -len(".html")]
            if not top_doc_has_example(html):
                missing.append(f"{module}::{item}")
            missing += [f"{module}::{item}::{m}" for m in methods_without_example(html)]
    return missing


def main():
    doc_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "target", "doc")
    total = 0
    for crate in CRATES:
        if not os.path.isdir(os.path.join(doc_dir, crate)):
            print(f"{crate}: no docs under {doc_dir} (run cargo doc --workspace --no-deps first)")
            total += 1
            continue
        missing = check_crate(doc_dir, crate)
        for m in missing:
            print(f"no example: {m}")
        print(f"{crate}: {len(missing)} public items without an example")
        total += len(missing)
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
