#!/usr/bin/env python3
"""Kernel structs are built with designated initialisers only.

The kernel structs are the `template <typename T...> struct Name {` of kernels/*.cuh that
name themselves (`static constexpr const char* name`), and the `using Name = Kernel<...>`
aliases there; helper value structs (FmPhiM, ThomasSystem) are not kernels. Many of their
members share a type (u, v and w are all `const T*`), so a positional initialiser such as
`sq::AdvecU2i5<T>{ut, v, u, w}` compiles with two of them swapped; `{.ut = ut, .u = u,
...}` does not. This script scans the C++ sources of kernels/, src/, tests/ and bench/ and
fails, naming file:line, on every brace initialiser of a kernel struct that is neither
empty nor designated:

    sq::Name<T>{...}   Name<float>{...}   sq::Name<T> k{...}   sq::Name<T> k = {...}
    sq::Name<T>(...)   (C++20 parenthesised aggregate initialisation)
    return {...};      in a function or lambda declared to return a kernel struct

and the same through an alias of a kernel struct declared in the file
(`using U = sq::AdvecU2i5<T>;`). Comments and string literals are not scanned. A kernel
struct that a template parameter stands for (`K<T>{...}`) is beyond it.

Usage: designated_init.py [ROOT] (ROOT: the repository, by default the one holding this
script). Exit status 0 when clean, 1 with a line per positional initialiser, 2 when the
kernel structs cannot be found.
"""
import pathlib
import re
import sys

SCANNED = ("kernels", "src", "tests", "bench")
SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh"}


def strip_comments_and_strings(text):
    """text with comments and string and character literals blanked (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for p in range(a, b):
            if out[p] != "\n":
                out[p] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c == '"':
            raw = re.match(r'"([^()\\\s]{0,16})\(', text[i : i + 20])
            if raw and re.search(r"(?<!\w)(u8|u|U|L)?R$", text[max(0, i - 3) : i]):
                end = text.find(")" + raw.group(1) + '"', i)
                end = n if end < 0 else end + len(raw.group(1)) + 2
            else:
                end = i + 1
                while end < n and text[end] not in '"\n':
                    end += 2 if text[end] == "\\" else 1
                end = min(end + 1, n)
            blank(i, end)
            i = end
        elif c == "'" and not (i > 0 and text[i - 1].isalnum()):  # not a digit separator
            end = i + 1
            while end < n and text[end] not in "'\n":
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n)
            blank(i, end)
            i = end
        else:
            i += 1
    return "".join(out)


def kernel_names(root):
    """The kernel structs of kernels/*.cuh and their aliases there."""
    names, aliases = set(), []
    for path in sorted((root / "kernels").glob("*.cuh")):
        text = strip_comments_and_strings(path.read_text())
        kernel = r"^template\s*<\s*typename\s+T\b[^>]*>\s*struct\s+(\w+)\s*(?::[^;{]*)?\{"
        for m in re.finditer(kernel, text, re.M):
            # A kernel names itself; helper value structs (FmPhiM, ThomasSystem) do not.
            body = text[m.end() : text.find("\n};", m.end())]
            if re.search(r"static\s+constexpr\s+const\s+char\s*\*\s*name\b", body):
                names.add(m.group(1))
        # At namespace scope only (unindented): those in a struct's body are its own.
        aliases += re.findall(r"^using\s+(\w+)\s*=\s*(?:\w+::)*(\w+)\s*<", text, re.M)
    names.update(alias for alias, target in aliases if target in names)
    return names


def skip_space(text, i):
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def skip_balanced(text, i, open_, close):
    """The index after the bracket that closes the one at i; -1 when it is not closed
    before a `;` (for angle brackets, which also stand for less and greater)."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == ";" and open_ == "<":
            return -1
        i += 1
    return -1


def is_positional(text, brace):
    """Whether the initialiser that opens at text[brace] ('{' or '(') has elements and
    does not designate its first."""
    first = skip_space(text, brace + 1)
    return first < len(text) and text[first] not in "}.)"


def returns_in_body(text, brace):
    """The index of each `return {` of the body opening at text[brace]."""
    end = skip_balanced(text, brace, "{", "}")
    body_end = len(text) if end < 0 else end
    return [brace + m.end() - 1 for m in re.finditer(r"\breturn\s*\{", text[brace:body_end])]


def check_file(text, names):
    """(offset of its bracket, name) of each positional initialiser of a kernel struct."""
    # Aliases of kernel structs (and of such aliases), each over the block it is declared in.
    blocks, stack = [], []
    for i, c in enumerate(text):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            blocks.append((stack.pop(), i))
    aliases = []  # (name, first, last): the alias and the span of its block
    for m in re.finditer(r"\busing\s+(\w+)\s*=\s*(?:\w+::)*(\w+)\s*<", text):
        alias, target = m.groups()
        if target in names or any(a == target and f <= m.start() < l for a, f, l in aliases):
            inner = [(f, l) for f, l in blocks if f < m.start() < l]
            first, last = max(inner) if inner else (0, len(text))
            aliases.append((alias, first, last))

    def is_kernel(name, pos):
        return name in names or any(a == name and f <= pos < l for a, f, l in aliases)

    found = []
    candidates = sorted(names | {a for a, _, _ in aliases})
    pattern = re.compile(r"(?<![\w.])((?:\w+::)*)(" + "|".join(candidates) + r")\b")
    for m in pattern.finditer(text):
        name, before = m.group(2), text[max(0, m.start() - 300) : m.start()]
        if not is_kernel(name, m.start()):
            continue
        if re.search(r"\b(struct|class)\s+\w+[^;{}()]*[^:]:(?!:)[^;{}()]*$", before):
            continue  # a base class: the brace opens the derived struct's body
        if re.search(r"\b(struct|class)\s*$", before):
            continue  # the struct's own definition (kernels/)
        i = skip_space(text, m.end())
        if i < len(text) and text[i] == "<":
            i = skip_balanced(text, i, "<", ">")
            if i < 0:
                continue
            i = skip_space(text, i)
        if i >= len(text):
            continue
        if re.search(r"->\s*$", before):  # a lambda's or function's trailing return type
            while i < len(text) and text[i] not in "{;":
                i += 1
            if i < len(text) and text[i] == "{":
                for r in returns_in_body(text, i):
                    if is_positional(text, r):
                        found.append((r, name))
            continue
        if text[i] in "{(":
            if is_positional(text, i):
                found.append((i, name))
            continue
        declarator = re.match(r"(\w+)\s*", text[i:])
        if not declarator or declarator.group(1) in ("const", "constexpr"):
            continue
        i += declarator.end()
        if text.startswith("=", i) and not text.startswith("==", i):
            i = skip_space(text, i + 1)
        if i >= len(text):
            continue
        if text[i] == "{":
            if is_positional(text, i):
                found.append((i, name))
        elif text[i] == "(":  # a function returning the kernel struct, or a call
            close = skip_balanced(text, i, "(", ")")
            j = close
            while 0 <= j < len(text) and text[j] not in "{;=,)":
                j += 1
            if close >= 0 and j < len(text) and text[j] == "{":
                for r in returns_in_body(text, j):
                    if is_positional(text, r):
                        found.append((r, name))
    return found


def main():
    here = pathlib.Path(__file__).resolve()
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here.parents[2]
    names = kernel_names(root)
    if not names:
        print(f"designated_init: no kernel structs found in {root / 'kernels'}")
        return 2
    bad, files = [], 0
    for top in SCANNED:
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            files += 1
            text = strip_comments_and_strings(path.read_text(errors="replace"))
            for pos, name in check_file(text, names):
                line = text.count("\n", 0, pos) + 1
                bad.append(f"{path.relative_to(root)}:{line}: positional initialiser of "
                           f"{name}; designate its members ({{.member = value, ...}})")
    for b in bad:
        print(b)
    print(f"designated_init: {len(names)} kernel structs, {files} files, "
          f"{len(bad)} positional initialisers")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
