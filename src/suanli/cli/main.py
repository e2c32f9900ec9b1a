"""The `suanli` command. Each command group lives in its own module and is mounted here."""

from __future__ import annotations

import sys

import typer

from suanli.cli import (
    bench_cmd,
    catalog_cmd,
    cost_cmd,
    estimate_cmd,
    feedback_cmd,
    migrate_cmd,
    plan_cmd,
    serve_cmd,
    store_cmd,
    validate_cmd,
)
from suanli.cli.output import err_console
from suanli.errors import SuanliError

app = typer.Typer(
    name="suanli",
    help="suanli (算力): which GPU or NPU to rent for an AI job, how many, how long, at what cost and risk.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

catalog_cmd.register(app)
estimate_cmd.register(app)
validate_cmd.register(app)
plan_cmd.register(app)
cost_cmd.register(app, migrate_cmd.app)
feedback_cmd.register(app, bench_cmd.app)
catalog_cmd.offers_app.command("import")(store_cmd.import_offers_cmd)
store_cmd.register(app)
serve_cmd.register(app)
app.add_typer(migrate_cmd.app, name="migrate", help="Will my model run on Ascend? Operator coverage and migration cost.")
app.add_typer(bench_cmd.app, name="bench", help="Benchmark harness: the seeds' test-instance evaluation on cpu/cuda/npu.")


def run() -> None:
    """Console-script entry point: a SuanliError becomes one red line on stderr and exit status 2."""
    try:
        app(standalone_mode=False)
    except SuanliError as e:
        err_console.print(f"[red]error:[/red] {e}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Abort:
        sys.exit(1)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except Exception as e:  # click usage errors arrive here in standalone_mode=False
        import click

        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(e.exit_code)
        raise


if __name__ == "__main__":
    run()
