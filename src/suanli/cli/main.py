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
    """Console-script entry point: a SuanliError or invalid input becomes one red line on stderr and exit
    status 2; usage errors print click's usage line; never a traceback for anything the user typed."""
    from pydantic import ValidationError

    try:
        app(standalone_mode=False)
    except SuanliError as e:
        _fail(str(e))
    except ValidationError as e:  # a model built straight from user input (bench spec, API-shaped options)
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or e.title
        _fail(f"{field}: {str(err['msg']).removeprefix('Value error, ')}")
    except ModuleNotFoundError as e:
        extra = _EXTRAS.get((e.name or "").split(".")[0])
        if extra is None:
            raise
        _fail(f"{e.name} is not installed: this command needs the {extra} extra: pip install 'suanli[{extra}]'")
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:
        # typer vendors its own click: match click's exceptions by what they do, not by their class
        if hasattr(e, "show") and hasattr(e, "exit_code"):
            e.show()
            sys.exit(e.exit_code or 2)
        if type(e).__name__ in ("Exit", "Abort"):
            sys.exit(getattr(e, "exit_code", 1))
        raise


_EXTRAS = {
    "sqlalchemy": "service", "alembic": "service", "fastapi": "service", "uvicorn": "service",
    "psycopg": "service", "platformdirs": "service", "swagger_ui_bundle": "service", "httpx": "service",
    "torch": "torch", "transformers": "torch", "ray": "ray", "peft": "lora", "playwright": "e2e",
}


def _fail(message: str) -> None:
    from rich.markup import escape

    err_console.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(2)


if __name__ == "__main__":
    run()
