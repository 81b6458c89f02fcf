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
