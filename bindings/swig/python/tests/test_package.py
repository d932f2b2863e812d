"""The package's surface: the type stubs match the code, every public
function and method has a docstring."""

import ast
import inspect
import pathlib

import gmlab

STUB = pathlib.Path(gmlab.__file__).with_name("__init__.pyi")


def stub_tree():
    return ast.parse(STUB.read_text())


def test_stub_names_are_the_public_names():
    names = set()
    for node in stub_tree().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    public = {n for n in names if not n.startswith("_") or n == "__version__"}
    assert public == set(gmlab.__all__)


def test_the_swig_module_is_not_public():
    assert not hasattr(gmlab, "swiggmlab")
    assert not [n for n in dir(gmlab) if "swig" in n.lower()]


def test_stub_methods_exist_with_the_same_parameters():
    checked = 0
    for node in stub_tree().body:
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(gmlab, node.name)
        for item in node.body:
            if not isinstance(item, ast.FunctionDef):
                continue
            assert hasattr(cls, item.name), "%s.%s" % (node.name, item.name)
            attr = inspect.getattr_static(cls, item.name)
            if isinstance(attr, property):
                continue
            func = getattr(cls, item.name)
            stub_params = [a.arg for a in item.args.args + item.args.kwonlyargs]
            real = [p.name for p in inspect.signature(func).parameters.values()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            if isinstance(attr, classmethod):
                stub_params = stub_params[1:]
            assert stub_params == real, "%s.%s: %s != %s" % (node.name, item.name, stub_params, real)
            checked += 1
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            real = [p.name for p in inspect.signature(getattr(gmlab, node.name)).parameters.values()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            assert [a.arg for a in node.args.args + node.args.kwonlyargs] == real, node.name
            checked += 1
    assert checked > 40


def test_everything_public_has_a_docstring():
    missing = []
    for name in gmlab.__all__:
        obj = getattr(gmlab, name)
        if inspect.isclass(obj):
            if not obj.__doc__:
                missing.append(name)
            for attr, value in vars(obj).items():
                if attr.startswith("_") or not (inspect.isfunction(value) or isinstance(value, (property, classmethod))):
                    continue
                if isinstance(value, classmethod):
                    value = value.__func__
                if not value.__doc__:
                    missing.append("%s.%s" % (name, attr))
        elif inspect.isfunction(obj) and not obj.__doc__:
            missing.append(name)
    assert missing == []
