"""Every command is documented: a help text, and a line in the README's usage block."""

from kb.cli import cli
from tests.helpers import ROOT


def test_every_command_has_help_and_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name, command in cli.commands.items():
        assert command.help and command.help.strip(), f"{name} has no help text"
        assert f"rulekb {name}" in readme, f"README does not show `rulekb {name}`"


def test_every_format_is_listed(cli):
    from ingest import FORMATS

    code, out, _ = cli("formats")
    assert code == 0
    listed = {line.split()[0] for line in out.splitlines()}
    assert listed == set(FORMATS)
    assert all(len(line.split(maxsplit=1)) == 2 for line in out.splitlines()), "a format module has no docstring"


def test_every_command_but_serve_takes_json_as_the_readme_says():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Every command but `serve` takes `--json`" in readme
    without = sorted(n for n, c in cli.commands.items() if not any("--json" in p.opts for p in c.params))
    assert without == ["serve"]


def test_formats_as_json(cli):
    import json

    from ingest import FORMATS

    code, out, _ = cli("formats", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["format"] for r in rows] == list(FORMATS) and all(r["description"] for r in rows)
