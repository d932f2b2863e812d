#!/usr/bin/env python3
"""Assembles the release folder from a built tree: the tarball and the .deb
(CPack), and one artifact per language binding, all of one version, with a
SHA256SUMS over everything. Run by the CMake target `release`
(cmake/GmlabRelease.cmake), which writes the inputs file it reads.

    assemble.py INPUTS.json

The release folder (INPUTS' "release_dir"):
    gmlab-<v>-Linux-<arch>.tar.gz, gmlab_<v>-1_<debarch>.deb
    maven/org/gmlab/gmlab/<v>/gmlab-<v>{.jar,-sources.jar,-javadoc.jar,.pom}
        (each with .sha1 and .sha256), maven/org/gmlab/gmlab/maven-metadata.xml
    Gmlab.<v>.nupkg
    go/<module path>/@v/{list,v<v>.info,v<v>.mod,v<v>.zip}   (a Go module proxy folder)
    gmlab-<v>-<pythons>-<pythons>-manylinux_2_<n>_<arch>.whl
    SHA256SUMS
Native libraries are stripped in every artifact, as CPack strips the tarball's.
"""

import datetime
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def log(text):
    print("release: " + text, flush=True)


def run(*args, cwd=None, env=None):
    result = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("release: %s failed (%d)\n%s%s" % (" ".join(args), result.returncode, result.stdout, result.stderr))
    return result.stdout


def substitute(template, values):
    with open(template, encoding="utf-8") as f:
        text = f.read()
    for key, value in values.items():
        text = text.replace("@%s@" % key, value)
    return text


def stripped(cfg, path):
    """The bytes of a native library without its symbol table (as CPack strips)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, os.path.basename(path))
        shutil.copyfile(path, copy)
        run(cfg["strip"], "--strip-unneeded", copy)
        with open(copy, "rb") as f:
            return f.read()


def write_zip(path, entries):
    """entries: (name in the archive, bytes, executable) in order; files only, fixed dates."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, executable in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def tree_entries(root, prefix=""):
    out = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(folder, f)
            with open(path, "rb") as fh:
                out.append((prefix + os.path.relpath(path, root).replace(os.sep, "/"), fh.read(),
                            os.access(path, os.X_OK)))
    return out


def checksums(path):
    with open(path, "rb") as f:
        data = f.read()
    for algorithm in ("sha1", "sha256"):
        with open(path + "." + algorithm, "w") as f:
            f.write(hashlib.new(algorithm, data).hexdigest() + "\n")


# ---- the tarball and the .deb ------------------------------------------------

def packages(cfg, out):
    work = os.path.join(cfg["work_dir"], "cpack")
    shutil.rmtree(work, ignore_errors=True)
    run(cfg["cpack"], "-G", "TGZ;DEB", "-B", work, cwd=cfg["build_dir"])
    found = [f for f in os.listdir(work) if f.endswith((".tar.gz", ".deb"))]
    if len(found) != 2:
        sys.exit("release: CPack made %s, not one .tar.gz and one .deb" % found)
    for f in found:
        shutil.copyfile(os.path.join(work, f), os.path.join(out, f))
    return sorted(found)


# ---- Java: a Maven repository folder ------------------------------------------

def with_native_checksums(entries):
    """The jar's entries with each native/<platform>/checksums.txt written anew
    from the libraries beside it as they are now (stripped): NativeLoader checks
    the copies it caches against that file."""
    data = {name: content for name, content, _ in entries}
    out = []
    for name, content, executable in entries:
        if name.startswith("native/") and os.path.basename(name) == "checksums.txt":
            folder = os.path.dirname(name)
            lines = []
            for line in content.decode().splitlines():
                library = line.split()[1]
                digest = hashlib.sha256(data[folder + "/" + library]).hexdigest()
                lines.append("%s  %s\n" % (digest, library))
            content = "".join(lines).encode()
        out.append((name, content, executable))
    return out


def maven(cfg, out):
    j = cfg["java"]
    version, group, artifact = cfg["version"], j["group"], j["artifact"]
    folder = os.path.join(out, "maven", *group.split("."), artifact)
    vdir = os.path.join(folder, version)
    os.makedirs(vdir)
    base = os.path.join(vdir, "%s-%s" % (artifact, version))

    # The jar as the build made it, its native libraries stripped.
    with zipfile.ZipFile(j["jar"]) as z:
        entries = [(i.filename, z.read(i), False) for i in z.infolist() if not i.is_dir()]
    natives = j["native_libraries"]  # name in the jar's native/<platform>/ -> the built file
    entries = [(name, stripped(cfg, natives[os.path.basename(name)]) if name.startswith("native/") and
                os.path.basename(name) in natives else data, executable) for name, data, executable in entries]
    entries = with_native_checksums(entries)
    pom = substitute(j["pom_template"], {"VERSION": version, "LICENSE": cfg["license"]})
    entries.append(("META-INF/maven/%s/%s/pom.xml" % (group, artifact), pom.encode(), False))
    write_zip(base + ".jar", entries)

    # Sources: SWIG's classes and the hand-written ones, in their package's folders.
    sources = []
    for root in j["source_dirs"]:
        for path in sorted(os.listdir(root)):
            if path.endswith(".java"):
                with open(os.path.join(root, path), "rb") as f:
                    sources.append(("org/gmlab/" + path, f.read(), False))
    write_zip(base + "-sources.jar", sources)

    # Javadoc of the public API.
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        for name, data, _ in sources:
            os.makedirs(os.path.dirname(os.path.join(src, name)), exist_ok=True)
            with open(os.path.join(src, name), "wb") as f:
                f.write(data)
        run(j["javadoc"], "-quiet", "-Xdoclint:none", "-encoding", "UTF-8", "-d", os.path.join(tmp, "doc"),
            "-sourcepath", src, "-windowtitle", "gmlab %s" % version, "org.gmlab")
        write_zip(base + "-javadoc.jar", tree_entries(os.path.join(tmp, "doc")))

    with open(base + ".pom", "w", encoding="utf-8") as f:
        f.write(pom)
    # The binding's README beside the artifacts (the jar carries it too).
    shutil.copyfile(j["readme"], os.path.join(vdir, "README.md"))
    for suffix in (".jar", "-sources.jar", "-javadoc.jar", ".pom"):
        checksums(base + suffix)

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d%H%M%S")
    metadata = """<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>%s</groupId>
  <artifactId>%s</artifactId>
  <versioning>
    <latest>%s</latest>
    <release>%s</release>
    <versions>
      <version>%s</version>
    </versions>
    <lastUpdated>%s</lastUpdated>
  </versioning>
</metadata>
""" % (group, artifact, version, version, version, stamp)
    with open(os.path.join(folder, "maven-metadata.xml"), "w", encoding="utf-8") as f:
        f.write(metadata)
    checksums(os.path.join(folder, "maven-metadata.xml"))
    return os.path.relpath(folder, out)


# ---- C#: a NuGet package -------------------------------------------------------

def nupkg(cfg, out):
    c = cfg["csharp"]
    version = cfg["version"]
    nuspec = substitute(c["nuspec_template"], {"VERSION": version, "LICENSE": cfg["license"]})
    entries = [("Gmlab.nuspec", nuspec.encode(), False)]
    with open(c["assembly"], "rb") as f:
        entries.append(("lib/netstandard2.0/Gmlab.dll", f.read(), False))
    # No Gmlab.dll.config: Gmlab.dll finds its native side itself, relative to
    # where it is (src/NativeLibraries.cs), with .NET and with Mono.
    for name, lib in sorted(c["native_libraries"].items()):  # file name in the package -> the built file
        entries.append(("runtimes/linux-x64/native/" + name, stripped(cfg, lib), True))
    with open(c["readme"], "rb") as f:
        entries.append(("README.md", f.read(), False))
    # The Open Packaging Conventions parts NuGet writes into every package.
    entries.append(("[Content_Types].xml", b"""<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />
  <Default Extension="nuspec" ContentType="application/octet" />
  <Default Extension="dll" ContentType="application/octet" />
  <Default Extension="so" ContentType="application/octet" />
  <Default Extension="0" ContentType="application/octet" />
  <Default Extension="md" ContentType="application/octet" />
</Types>
""", False))
    entries.append(("_rels/.rels", b"""<?xml version="1.0" encoding="utf-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/Gmlab.nuspec" Id="R0" />
</Relationships>
""", False))
    name = "Gmlab.%s.nupkg" % version
    write_zip(os.path.join(out, name), entries)
    return name


# ---- Go: a module proxy folder --------------------------------------------------

def go_module(cfg, out):
    g = cfg["go"]
    version = "v" + cfg["version"]
    module = g["module_path"]
    prefix = "%s@%s/" % (module, version)
    entries = []
    for name, path in sorted(g["files"].items()):
        with open(path, "rb") as f:
            entries.append((prefix + name, f.read(), False))
    folder = os.path.join(out, "go", *module.split("/"), "@v")
    os.makedirs(folder)
    write_zip(os.path.join(folder, version + ".zip"), entries)
    with open(g["files"]["go.mod"], "rb") as src, open(os.path.join(folder, version + ".mod"), "wb") as dst:
        dst.write(src.read())
    with open(os.path.join(folder, version + ".info"), "w") as f:
        json.dump({"Version": version, "Time": cfg["time"]}, f)
        f.write("\n")
    with open(os.path.join(folder, "list"), "w") as f:
        f.write(version + "\n")
    return os.path.relpath(os.path.join(folder, version + ".zip"), out)


# ---- Python: the wheel ----------------------------------------------------------

def wheel(cfg, out):
    p = cfg["python"]
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "project")
        shutil.copytree(p["project_dir"], project,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "dist", "*.stamp", "*.egg-info"))
        package = os.path.join(project, "gmlab")
        for f in os.listdir(package):
            if f.endswith(".so") or ".so." in f:
                data = stripped(cfg, os.path.join(package, f))
                with open(os.path.join(package, f), "wb") as fh:
                    fh.write(data)
        tag = run(cfg["python_executable"], p["platform_script"], package).strip()
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import gmlab_build_backend as b; "
                "print(b.build_wheel(sys.argv[2], {'platform-tag': sys.argv[3]}))")
        name = run(cfg["python_executable"], "-c", code, project, out, tag).strip()
    return name


def sha256sums(out):
    lines = []
    for folder, dirs, files in os.walk(out):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, out)
            if rel == "SHA256SUMS":
                continue
            with open(path, "rb") as fh:
                lines.append("%s  %s\n" % (hashlib.sha256(fh.read()).hexdigest(), rel))
    with open(os.path.join(out, "SHA256SUMS"), "w") as f:
        f.writelines(lines)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    cfg["time"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = cfg["release_dir"]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    os.makedirs(cfg["work_dir"], exist_ok=True)
    made = packages(cfg, out)
    log("packages: " + ", ".join(made))
    log("Java: " + maven(cfg, out))
    log("C#: " + nupkg(cfg, out))
    log("Go: " + go_module(cfg, out))
    log("Python: " + wheel(cfg, out))
    sha256sums(out)
    for folder, dirs, files in os.walk(out):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(folder, f)
            if not f.endswith((".sha1", ".sha256")):
                log("%10.1f MiB  %s" % (os.path.getsize(path) / 2**20, os.path.relpath(path, out)))


if __name__ == "__main__":
    main()
