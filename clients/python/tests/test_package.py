"""The package as installed: its metadata, its sources, and that every operation of the document has its method."""

import ast
import inspect
import json
import os
import re
import sys
import unittest

import cardcat
from cardcat import _operations

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OPENAPI = os.path.join(ROOT, "..", "openapi.json")

sys.path.insert(0, os.path.join(ROOT, "build_backend"))
import cardcat_build  # noqa: E402


def pyproject_value(key: str) -> str:
    """A string value of pyproject.toml's [project] table (read with a regex: tomllib is 3.11+)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    project = text.split("[project]", 1)[1]
    m = re.search(rf'^{re.escape(key)} = "([^"]*)"$', project, re.M)
    if not m:
        raise AssertionError(f"pyproject.toml: no {key} in [project]")
    return m.group(1)


class Package(unittest.TestCase):
    def test_installed(self) -> None:
        """With CARDCAT_TEST_INSTALLED (the Go test sets it to the virtual environment), the package under
        test is the one pip installed there, not the sources."""
        prefix = os.environ.get("CARDCAT_TEST_INSTALLED")
        if prefix:
            self.assertTrue(os.path.realpath(cardcat.__file__).startswith(os.path.realpath(prefix) + os.sep),
                            cardcat.__file__)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(cardcat.__file__), "py.typed")))

    def test_metadata(self) -> None:
        self.assertEqual(pyproject_value("name"), cardcat_build.NAME)
        self.assertEqual(pyproject_value("version"), cardcat.__version__)
        self.assertEqual(cardcat_build.version(), cardcat.__version__)
        self.assertEqual(pyproject_value("description"), cardcat_build.SUMMARY)
        self.assertEqual(pyproject_value("requires-python"), cardcat_build.REQUIRES_PYTHON)
        with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        for classifier in cardcat_build.CLASSIFIERS:
            self.assertIn(f'"{classifier}"', text)

    def test_python_39_syntax(self) -> None:
        """The sources parse as Python 3.9 (the oldest this package supports)."""
        package = os.path.dirname(cardcat.__file__)
        for name in sorted(os.listdir(package)):
            if name.endswith(".py"):
                with open(os.path.join(package, name), encoding="utf-8") as f:
                    ast.parse(f.read(), name, feature_version=(3, 9))

    def test_every_operation_has_its_method(self) -> None:
        with open(OPENAPI, encoding="utf-8") as f:
            doc = json.load(f)
        ids = {op["operationId"] for item in doc["paths"].values() for op in item.values()}
        self.assertEqual(set(cardcat.OPERATIONS), ids)
        called = set()
        for cls in (_operations.ServiceOperations, _operations.GameOperations, _operations.BaseGameOperations):
            for name, fn in vars(cls).items():
                if callable(fn) and not name.startswith("_"):
                    called.update(re.findall(r'self\._call\(\s*"(\w+)"', inspect.getsource(fn)))
        self.assertEqual(called | set(cardcat.BASE_TWINS.values()), ids)
        for game_op, twin in cardcat.BASE_TWINS.items():
            self.assertEqual(cardcat.OPERATIONS[twin].path, cardcat.OPERATIONS[game_op].path.replace("/{game}", "", 1))

    def test_a_sub_client_per_game(self) -> None:
        client = cardcat.Client("", "http://localhost:8080")
        for code in cardcat.GAMES:
            self.assertEqual(client.game(code).code, code)
        self.assertIsInstance(client.game(cardcat.BASE_GAME), cardcat.PokemonClient)
        with self.assertRaises(ValueError):
            client.game("xyz")

    def test_readme_names_every_method(self) -> None:
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        names = set()
        for cls in (cardcat.Client, cardcat.PokemonClient):
            names.update(n for n, v in inspect.getmembers(cls) if callable(v) and not n.startswith("_"))
        missing = sorted(n for n in names if f"{n}(" not in readme)
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
