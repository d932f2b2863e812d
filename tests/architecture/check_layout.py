#!/usr/bin/env python3
"""Checks the source tree against docs/architecture.md.

The include rules are read from the table under "## Include rules" in
docs/architecture.md, so the map and the check cannot drift apart:

    | folder | may include |
    |---|---|
    | `src/core` | `src/core`, `src/shared_kernels`, `include` |

A file belongs to the longest folder in the table that holds it. Each quoted
#include of the file is resolved to a path in the repository (the file's
include roots are given per folder in the "## Include roots" table) and must
lie under one of the folders its row allows. `<family>` stands for the file's
own experiment family; an entry with a `*` is a glob over paths in which `*`
stays within one folder name (`storage/*` is storage's own files, not its
subfolders').

Besides the include rules:
  - nothing includes a .cu file (host code never includes kernels' sources);
  - kernels and launchers (.cu, .cuh) do no I/O: no stdio, streams, files or JSON;
  - every experiment family folder holds its host code (.cpp) and its kernels
    (.cu), or its kernels are shared ones named after it (shared_kernels/<family>_ops.cu);
  - no source folder holds more than --max-files source files;
  - no function in src/ or tools/ is longer than --max-function-lines lines
    (from its opening brace to its closing one): each phase of a long one
    becomes a function with a name.

Exit 0 when the tree follows the rules, 1 with one line per violation.
--self-test builds small trees that break each rule and checks that each is caught.
"""
import argparse
import os
import re
import sys
import tempfile

SOURCE_EXT = ('.c', '.h', '.cpp', '.hpp', '.cu', '.cuh')
CHECKED_TREES = ('src', 'tools', 'tests', 'bindings')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
KERNEL_IO_HEADERS = ('iostream', 'fstream', 'sstream', 'cstdio', 'stdio.h', 'filesystem', 'nlohmann/')
KERNEL_IO_CALLS = re.compile(r'\b(printf|fprintf|puts|fopen|std::cout|std::cerr)\s*[(<]')
LENGTH_TREES = ('src/', 'tools/')
SCOPE_OPENER = re.compile(r'\b(namespace|class|struct|union|enum)\b|extern\s*"C"')


def strip_code(text):
    """The text with comments, string and character literals and preprocessor
    lines blanked (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#':
            j = i
            while j < n and (text[j] != '\n' or text[j - 1] == '\\'):
                j += 1
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
            continue
        if c in ' \t':
            out.append(c)
            i += 1
            continue
        line_start = c == '\n'
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'' and not (c == '\'' and i > 0 and text[i - 1].isalnum()):
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(' ' * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def function_lengths(text):
    """(name, first line, lines) of every function body at namespace or class
    scope: a brace whose statement holds a parameter list. Lambdas and local
    classes count as part of the function they are in."""
    code = strip_code(text)
    found = []
    stack = []  # per open brace: 'scope', 'function' or 'other'
    start = 0   # where the current statement began
    for i, c in enumerate(code):
        if c == ';':
            if not stack or stack[-1] == 'scope':
                start = i + 1
        elif c == '{':
            if stack and stack[-1] != 'scope':
                stack.append('other')
                continue
            head = code[start:i]
            if SCOPE_OPENER.search(head) and '(' not in head.split('=')[0]:
                stack.append('scope')
            elif '(' in head and '=' not in head.split('(')[0]:
                m = re.search(r'([~\w:]+(?:<[^()]*>)?)\s*\(', head)
                name = m.group(1) if m else '?'
                stack.append(('function', name, code.count('\n', 0, i) + 1))
            else:
                stack.append('other')
            start = i + 1
        elif c == '}':
            if not stack:
                continue
            top = stack.pop()
            if isinstance(top, tuple):
                last = code.count('\n', 0, i) + 1
                found.append((top[1], top[2], last - top[2] + 1))
            if not stack or stack[-1] == 'scope':
                start = i + 1
    return found


def long_functions(root, paths, limit):
    """{"path:function": lines} of the functions over the limit."""
    out = {}
    for path in paths:
        if not path.startswith(LENGTH_TREES):
            continue
        text = open(os.path.join(root, path), errors='replace').read()
        for name, line, lines in function_lengths(text):
            if lines > limit:
                key = '%s:%s' % (path, name)
                out[key] = max(lines, out.get(key, 0))
    return out


def read_table(text, heading):
    """Rows of the markdown table under `## heading`: {folder: [entries]}."""
    m = re.search(r'^## ' + re.escape(heading) + r'\s*$', text, re.M)
    if not m:
        raise SystemExit('docs/architecture.md has no "## %s" section' % heading)
    rows = {}
    for line in text[m.end():].split('\n'):
        line = line.strip()
        if line.startswith('## '):
            break
        if not line.startswith('|') or set(line) <= set('|-: '):
            continue
        cells = [c.strip() for c in line.strip('|').split('|')]
        if len(cells) < 2 or not cells[0].startswith('`'):
            continue
        folder = cells[0].strip('`')
        rows[folder] = re.findall(r'`([^`]+)`', cells[1])
    if not rows:
        raise SystemExit('the "## %s" table in docs/architecture.md is empty' % heading)
    return rows


def owner(path, folders):
    """The longest folder of the table that holds path (None if none); of two
    as long, the one named outright (`src/experiments/common`) before the
    pattern (`src/experiments/<family>`)."""
    best = None
    for f in folders:
        pattern = f.replace('<family>', '*')
        parts = pattern.split('/')
        head = '/'.join(path.split('/')[:len(parts)])
        if not glob_match(head, pattern):
            continue
        longer = best is None or len(parts) > len(best.split('/'))
        named = best is not None and len(parts) == len(best.split('/')) and '<family>' in best and '<family>' not in f
        if longer or named:
            best = f
    return best


def family_of(path, layers=()):
    """The experiment family a file is in; None outside src/experiments/<family>
    and in a folder of src/experiments with a row of its own (a layer such as
    src/experiments/common, which no family is)."""
    parts = path.split('/')
    if len(parts) >= 4 and parts[0] == 'src' and parts[1] == 'experiments' and '/'.join(parts[:3]) not in layers:
        return parts[2]
    return None


def glob_match(path, pattern):
    """fnmatch in which `*` stays within one folder name."""
    regex = ''.join('[^/]*' if c == '*' else re.escape(c) for c in pattern)
    return re.fullmatch(regex, path) is not None


def allowed(target, entries, family):
    for e in entries:
        if '<family>' in e:
            if family is None:
                continue
            e = e.replace('<family>', family)
        if '*' in e:
            if glob_match(target, e):
                return True
        elif target == e or target.startswith(e.rstrip('/') + '/'):
            return True
    return False


def source_files(root):
    for tree in CHECKED_TREES:
        for d, dirs, files in os.walk(os.path.join(root, tree)):
            dirs[:] = sorted(x for x in dirs if not x.startswith('.') and x != '__pycache__')
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(d, f), root).replace(os.sep, '/')


FAMILY_LINE = re.compile(r'^\s*FAMILY\((\w+)\)', re.M)


def family_name_problems(root, rules):
    """Each family of src/experiments/families.cpp is named after its folder
    (add_<folder>_experiments), and every family folder is listed once."""
    path = os.path.join(root, 'src', 'experiments', 'families.cpp')
    if not os.path.isfile(path):
        return []
    listed = FAMILY_LINE.findall(open(path).read())
    base = os.path.join(root, 'src', 'experiments')
    folders = sorted(f for f in os.listdir(base)
                     if os.path.isdir(os.path.join(base, f)) and 'src/experiments/' + f not in rules)
    problems = ['src/experiments/families.cpp lists the family "%s", but no folder src/experiments/%s holds it' % (n, n)
                for n in listed if n not in folders]
    problems += ['src/experiments/%s is a family folder that src/experiments/families.cpp does not list' % f
                 for f in folders if f not in listed]
    problems += ['src/experiments/families.cpp lists "%s" twice' % n for n in sorted(set(listed)) if listed.count(n) > 1]
    return problems


def check(root, max_files, max_function_lines=150):
    doc = open(os.path.join(root, 'docs', 'architecture.md')).read()
    rules = read_table(doc, 'Include rules')
    roots = read_table(doc, 'Include roots')
    problems = []
    per_folder = {}
    for path in source_files(root):
        per_folder.setdefault(os.path.dirname(path), []).append(path)
        text = open(os.path.join(root, path), errors='replace').read()
        is_kernel = path.endswith(('.cu', '.cuh'))
        rule = owner(path, rules)
        family = family_of(path, rules)
        for kind, name in INCLUDE.findall(text):
            if name.endswith('.cu'):
                problems.append('%s includes %s: host code never includes a .cu (include its .cuh)' % (path, name))
            if is_kernel and path.startswith('src/') and any(name.startswith(h) for h in KERNEL_IO_HEADERS):
                problems.append('%s includes <%s>: kernels and launchers do no I/O' % (path, name))
            if kind != '"' or rule is None:
                continue
            search = [os.path.dirname(path)] + roots.get(owner(path, roots), [])
            target = None
            for base in search:
                candidate = os.path.normpath(os.path.join(base, name)).replace(os.sep, '/')
                if os.path.isfile(os.path.join(root, candidate)):
                    target = candidate
                    break
            if target is None:
                problems.append('%s includes "%s", which is in none of its include roots (%s)' %
                                (path, name, ', '.join(search)))
            elif not allowed(target, rules[rule], family):
                problems.append('%s includes %s: files in %s may include only %s' %
                                (path, target, rule, ', '.join(rules[rule])))
        if is_kernel and path.startswith('src/') and KERNEL_IO_CALLS.search(text):
            problems.append('%s calls an I/O function: kernels and launchers do no I/O' % path)
    families = os.path.join(root, 'src', 'experiments')
    if os.path.isdir(families):
        for fam in sorted(os.listdir(families)):
            d = os.path.join(families, fam)
            if not os.path.isdir(d) or 'src/experiments/' + fam in rules:
                continue
            files = os.listdir(d)
            shared = os.path.isfile(os.path.join(root, 'src', 'shared_kernels', fam + '_ops.cu'))
            if not any(f.endswith('.cpp') for f in files) or not (shared or any(f.endswith('.cu') for f in files)):
                problems.append('src/experiments/%s must hold its host code (.cpp) and its kernels (.cu)' % fam)
    problems += family_name_problems(root, rules)
    for folder, files in sorted(per_folder.items()):
        if len(files) > max_files:
            problems.append('%s holds %d source files (at most %d): split it by concern' % (folder, len(files), max_files))
    long_now = long_functions(root, [p for files in per_folder.values() for p in files], max_function_lines)
    for key, lines in sorted(long_now.items()):
        problems.append('%s is %d lines long (at most %d): give each phase a function of its own' %
                        (key, lines, max_function_lines))
    return problems


SELF_TEST_DOC = '''# map
## Include rules
| folder | may include |
|---|---|
| `src/core` | `src/core`, `include` |
| `src/experiments/<family>` | `src/core`, `src/experiments/<family>`, `src/experiments/common`, `src/operations` |
| `src/experiments/common` | `src/core`, `src/experiments/common` |
| `src/operations` | `src/core`, `src/operations`, `src/experiments/*/*.cuh` |
| `src/api` | `src/core`, `src/operations` |
| `tools/cli` | `tools/cli`, `include` |
## Include roots
| folder | roots |
|---|---|
| `src` | `src`, `include` |
| `tools/cli` | `include` |
'''

SELF_TEST_CASES = {
    'clean': ({}, 0),
    'families named after their folders': ({'src/experiments/families.cpp': '    FAMILY(x)\n    FAMILY(y)\n'}, 0),
    'a family named unlike its folder': ({'src/experiments/families.cpp': '    FAMILY(x)\n    FAMILY(why)\n'}, 1),
    'a family folder the list leaves out': ({'src/experiments/families.cpp': '    FAMILY(x)\n'}, 1),
    'core includes an experiment': ({'src/core/a.cpp': '#include "experiments/x/x.cuh"\n'}, 1),
    'a family includes another family\'s kernels': ({'src/experiments/y/y.cpp': '#include "experiments/x/x.cuh"\n'}, 1),
    'a family includes another family\'s host header': ({'src/experiments/y/y.cpp': '#include "experiments/x/x.hpp"\n'}, 1),
    'an operation launches a family\'s kernels': ({'src/operations/op.cpp': '#include "experiments/x/x.cuh"\n'}, 0),
    'an operation includes a family\'s host header': ({'src/operations/op.cpp': '#include "experiments/x/x.hpp"\n'}, 1),
    'a glob reaches into a subfolder': ({'src/experiments/x/sub/deep.cuh': '', 'src/operations/op.cpp': '#include "experiments/x/sub/deep.cuh"\n'}, 1),
    'a family uses an operation': ({'src/operations/op.hpp': '', 'src/experiments/y/y.cpp': '#include "operations/op.hpp"\n'}, 0),
    'the C boundary reaches into a family': ({'src/api/c_api.cpp': '#include "experiments/x/x.hpp"\n'}, 1),
    'a family whose kernels are shared': ({'src/experiments/s/s.cpp': '', 'src/shared_kernels/s_ops.cu': ''}, 0),
    'a tool includes the library\'s internals': ({'tools/cli/m.cpp': '#include "../../src/core/a.hpp"\n'}, 1),
    'an include that resolves nowhere': ({'tools/cli/m.cpp': '#include "nothere.hpp"\n'}, 1),
    'host code includes a .cu': ({'src/experiments/x/x.cpp': '#include "experiments/x/x.cu"\n'}, 1),
    'a kernel prints': ({'src/experiments/x/x.cu': '__global__ void k() { printf("hi"); }\n'}, 1),
    'a kernel includes iostream': ({'src/experiments/x/x.cu': '#include <iostream>\n'}, 1),
    'a family without kernels': ({'src/experiments/z/z.cpp': ''}, 1),
    'a shared layer of host code without kernels': ({'src/experiments/common/c.cpp': '#include "core/a.hpp"\n',
                                                      'src/experiments/x/z.cpp': '#include "experiments/common/c.hpp"\n',
                                                      'src/experiments/common/c.hpp': ''}, 0),
    'the shared layer includes a family': ({'src/experiments/common/c.cpp': '#include "experiments/x/x.hpp"\n'}, 1),
    'a folder of too many files': ({'src/core/f%d.hpp' % i: '' for i in range(30)}, 1),
    'a function over the length limit': ({'src/core/long.cpp': 'namespace a {\nint f(int x) {\n' + '    x += 1;\n' * 160 + '    return x;\n}\n}\n'}, 1),
    'a long function in a class': ({'tools/cli/long.cpp': 'struct S {\n  void g() const {\n' + '    h();\n' * 160 + '  }\n};\n'}, 1),
    'a long table is no function': ({'src/core/table.cpp': 'const int t[] = {\n' + '    1,\n' * 200 + '};\n'}, 0),
    'braces in comments and strings do not count': ({'src/core/s.cpp': 'int f() {\n  // }\n  const char *s = "}";\n' + '  s++;\n' * 100 + '  return 0;\n}\n'}, 0),
}


def self_test():
    base = {
        'docs/architecture.md': SELF_TEST_DOC,
        'include/gmlab.h': '',
        'src/core/a.hpp': '#include "gmlab.h"\n',
        'src/experiments/x/x.cpp': '#include "core/a.hpp"\n#include "experiments/x/x.cuh"\n',
        'src/experiments/x/x.cu': '#include "experiments/x/x.cuh"\n',
        'src/experiments/x/x.cuh': '#include <cstddef>\n',
        'src/experiments/x/x.hpp': '',
        'src/experiments/y/y.cpp': '',
        'src/experiments/y/y.cu': '',
        'tools/cli/m.cpp': '#include "gmlab.h"\n',
    }
    failed = 0
    for name, (extra, expected) in SELF_TEST_CASES.items():
        with tempfile.TemporaryDirectory() as d:
            for p, text in {**base, **extra}.items():
                os.makedirs(os.path.dirname(os.path.join(d, p)), exist_ok=True)
                with open(os.path.join(d, p), 'a') as f:
                    f.write(text)
            got = check(d, 25, 150)
            if (len(got) > 0) != (expected > 0):
                failed += 1
                print('self-test "%s": expected %s, got %s' % (name, 'a violation' if expected else 'none', got or 'none'))
    print('self-test: %d of %d cases as expected' % (len(SELF_TEST_CASES) - failed, len(SELF_TEST_CASES)))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    ap.add_argument('--max-files', type=int, default=25)
    ap.add_argument('--max-function-lines', type=int, default=150)
    ap.add_argument('--list-long', action='store_true', help='print every function over the limit, longest first')
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if a.list_long:
        root = os.path.abspath(a.root)
        found = long_functions(root, list(source_files(root)), a.max_function_lines)
        for key, lines in sorted(found.items(), key=lambda kv: -kv[1]):
            print('%5d %s' % (lines, key))
        return 0
    problems = check(os.path.abspath(a.root), a.max_files, a.max_function_lines)
    for p in problems:
        print(p)
    print('%d problem(s)' % len(problems) if problems else 'the tree follows docs/architecture.md')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
