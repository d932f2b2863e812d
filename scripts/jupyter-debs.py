#!/usr/bin/env python3
"""Fetches Jupyter (nbconvert, nbclient, ipykernel and what they need) as
Ubuntu 24.04 packages, for a GPU machine whose Python 3.12 has no Jupyter and
that reaches no package registry: scripts/explain-sites-gpu.sh unpacks them
there (JUPYTER_DEBS=folder) to run the notebook session under a real kernel.

    scripts/jupyter-debs.py FOLDER      downloads the .deb files into FOLDER

The packages' dependencies are resolved from the archive's own indexes;
what an Ubuntu 24.04 system or the GPU machine's Python already has (the
interpreter, libc, numpy, ...) is left out.
"""
import lzma
import os
import re
import sys
import urllib.request

ARCHIVE = 'http://archive.ubuntu.com/ubuntu'
SUITES = ['noble', 'noble-updates']
WANTED = ['jupyter-nbconvert', 'python3-ipykernel', 'python3-nbclient']
# On every Ubuntu 24.04 system, or not needed to execute a notebook.
PRESENT = set('''python3 python3-minimal python3.12 python3.12-minimal libpython3.12-stdlib libpython3.12t64
libpython3-stdlib libc6 libgcc-s1 libstdc++6 zlib1g libssl3t64 libffi8 tzdata debconf dpkg perl-base
sensible-utils libexpat1 libbz2-1.0 liblzma5 libzstd1 libcrypt1 libuuid1 libsqlite3-0 libreadline8t64
libncursesw6 libtinfo6 media-types ca-certificates libgomp1 python3-pkg-resources python3-setuptools
python3-numpy python3-six gdb python3-debugpy python3-pydevd python3-typeshed libglib2.0-0t64 python3-pil
python3-matplotlib python3-scipy pandoc'''.split())


def packages():
    index = {}
    for suite in SUITES:
        for component in ('main', 'universe'):
            url = '%s/dists/%s/%s/binary-amd64/Packages.xz' % (ARCHIVE, suite, component)
            text = lzma.decompress(urllib.request.urlopen(url, timeout=120).read()).decode('utf-8', 'replace')
            for para in text.split('\n\n'):
                fields = dict(re.findall(r'^([A-Za-z-]+): (.*)$', para, re.M))
                if 'Package' in fields:
                    index[fields['Package']] = fields  # the later suite (updates) wins
    return index


def closure(index):
    provides = {}
    for name, fields in index.items():
        for p in fields.get('Provides', '').split(','):
            p = p.strip().split(' ')[0]
            if p:
                provides.setdefault(p, name)
    seen, todo = [], list(WANTED)
    while todo:
        name = todo.pop()
        name = name if name in index else provides.get(name, name)
        if name in PRESENT or name in seen:
            continue
        if name not in index:
            print('not in the archive: %s' % name, file=sys.stderr)
            continue
        seen.append(name)
        for field in ('Pre-Depends', 'Depends'):
            for alternatives in index[name].get(field, '').split(','):
                first = alternatives.split('|')[0].strip().split(' ')[0].split(':')[0]
                if first:
                    todo.append(first)
    return seen


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    index = packages()
    names = closure(index)
    total = 0
    for name in names:
        path = index[name]['Filename']
        data = urllib.request.urlopen('%s/%s' % (ARCHIVE, path), timeout=120).read()
        with open(os.path.join(folder, os.path.basename(path)), 'wb') as f:
            f.write(data)
        total += len(data)
    print('%d packages, %.1f MB in %s' % (len(names), total / 1e6, folder))
    return 0


if __name__ == '__main__':
    sys.exit(main())
