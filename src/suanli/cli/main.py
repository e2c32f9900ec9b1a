"""The `suanli` command. Each command group lives in its own module and is mounted here."""

from __future__ import annotations

import gc

# This module's imports (typer, rich, the message catalog: ~60 ms) run without the cyclic collector, which walked
# their objects ~40 times (~5 ms). After them everything alive goes to the oldest generation (freeze, then unfreeze:
# nothing stays frozen), so that collecting again does not walk it all at once (~6 ms); `run` then defers the
# collector over the command's start-up (below). A process that had switched the collector off keeps it off.
_GC_ON_IMPORT = gc.isenabled()
gc.disable()

import contextlib
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer
import typer.main
from typer.core import TyperGroup

from suanli.cli.output import echo, env_lang_read, lang, list_sep, set_lang
from suanli.errors import SuanliError
from suanli.i18n import Message

if _GC_ON_IMPORT:
    gc.freeze()
    gc.unfreeze()
    gc.enable()


# Each command's module is imported only when that command runs (`suanli --help` imports none of them):
# name -> the loader that registers it. The one-line help comes from the message catalog (`cmd.<name>`),
# so the list shows without importing; tests/unit/cli checks it against each command's docstring.
def _catalog(app: typer.Typer) -> None:
    from suanli.cli import catalog_cmd, store_cmd

    catalog_cmd.register(app)
    if not any(c.name == "import" for c in catalog_cmd.offers_app.registered_commands):
        catalog_cmd.offers_app.command("import")(store_cmd.import_offers_cmd)


def _estimate(app: typer.Typer) -> None:
    from suanli.cli import estimate_cmd

    estimate_cmd.register(app)


def _validate(app: typer.Typer) -> None:
    from suanli.cli import validate_cmd

    validate_cmd.register(app)


def _plan(app: typer.Typer) -> None:
    from suanli.cli import plan_cmd

    plan_cmd.register(app)


def _cost(app: typer.Typer) -> None:  # compare, tco, rent-vs-buy, scenarios, and `migrate cost`
    from suanli.cli import cost_cmd, migrate_cmd

    cost_cmd.register(app, migrate_cmd.app)
    app.add_typer(migrate_cmd.app, name="migrate", help="Will my model run on Ascend? Operator coverage and migration cost.")


def _bench(app: typer.Typer) -> None:  # calibrate, and `bench compare`
    from suanli.cli import bench_cmd, feedback_cmd

    feedback_cmd.register(app, bench_cmd.app)
    app.add_typer(bench_cmd.app, name="bench", help="Benchmark harness: the seeds' test-instance evaluation on cpu/cuda/npu.")


def _store(app: typer.Typer) -> None:
    from suanli.cli import store_cmd

    store_cmd.register(app)


def _serve(app: typer.Typer) -> None:
    from suanli.cli import serve_cmd

    serve_cmd.register(app)


COMMANDS: dict[str, Callable[[typer.Typer], None]] = {
    "gpus": _catalog, "gpu": _catalog, "models": _catalog, "model": _catalog, "offers": _catalog,
    "estimate": _estimate, "validate": _validate, "plans": _plan, "plan": _plan,
    "compare": _cost, "tco": _cost, "rent-vs-buy": _cost, "scenarios": _cost, "calibrate": _bench,
    "serve": _serve, "db": _store, "migrate": _cost, "bench": _bench,
}


@functools.cache
def _loaded(loader: Callable[[typer.Typer], None]) -> Any:
    """The click group holding the commands one loader registers (built once per process)."""
    sub = typer.Typer(add_completion=False)
    sub.callback()(lambda: None)  # a callback makes typer build a group even for one command
    with _numpy_blas_one_thread():
        loader(sub)
    return typer.main.get_command(sub)


@contextlib.contextmanager
def _numpy_blas_one_thread() -> Iterator[None]:
    """numpy's OpenBLAS starts one thread per core when numpy is imported, and they spin: ~0.09 s of CPU per
    command, ~0.05 s of wall on this 2-core machine while another job runs (scripts/bench_cli_startup.py).
    suanli's numpy kernels are element-wise (no BLAS call), so numpy imported by a command's module gets one
    BLAS thread, unless the user set OPENBLAS_NUM_THREADS. The variable is removed again after the import: a
    BLAS loaded later (torch's, in `bench run`) and child processes see the user's environment."""
    if "numpy" in sys.modules or "OPENBLAS_NUM_THREADS" in os.environ:
        yield
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        os.environ.pop("OPENBLAS_NUM_THREADS", None)


_LANG_TAG = re.compile(r"(zh|en)(?:[-_][A-Za-z0-9]+)*(?:\.[A-Za-z0-9-]+)?", re.IGNORECASE)


def _lang_code(value: str) -> str | None:
    """`--lang`'s value as zh or en: zh, zh-CN, zh_CN, zh-Hans, zh_CN.UTF-8, en-US …; None for anything else."""
    m = _LANG_TAG.fullmatch(value.strip())
    return m.group(1).lower() if m else None


def _lang_from_argv() -> None:
    """`--lang` as typed, for what runs before the group's callback has parsed it: eager `--help`, and usage
    errors click raises while it parses (an unknown command, an option without its value)."""
    argv = sys.argv[1:]
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv) and _lang_code(argv[i + 1]):
            set_lang(_lang_code(argv[i + 1]))
        elif a.startswith("--lang=") and _lang_code(a[7:]):
            set_lang(_lang_code(a[7:]))


_RUNNING: Any = None  # the command this run loaded (`LazyGroup.get_command`): the flags an error line can name


class LazyGroup(TyperGroup):
    """A typer group whose commands are imported on first use; help lists them from the message catalog."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *COMMANDS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None or cmd_name not in COMMANDS:
            return cmd
        if self._listing:  # only the name and the one-line help are shown
            from suanli.i18n import t

            return typer.core.TyperCommand(cmd_name, help=t(f"cmd.{cmd_name}", lang()))
        cmd = _loaded(COMMANDS[cmd_name]).get_command(ctx, cmd_name)
        _end_startup()
        global _RUNNING
        _RUNNING = cmd  # its flags name a refused field in the error line (`_flag_of`)
        return cmd

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from suanli.i18n import t

        _lang_from_argv()  # `--help` is eager: `--lang` has not been parsed yet when help prints
        LazyGroup._listing = True
        help_text, self.help = self.help, t("app.help", lang())
        try:
            super().format_help(ctx, formatter)
        finally:
            LazyGroup._listing = False
            self.help = help_text


app = typer.Typer(
    name="suanli",
    cls=LazyGroup,
    help="suanli (算力): which GPU or NPU to rent for an AI job, how many, how long, at what cost and risk.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("suanli")
        except PackageNotFoundError:  # running from a source tree that is not installed
            v = "unknown"
        sys.stdout.write(f"suanli {v}\n")
        raise typer.Exit()


@app.callback()
def _main(
    lang_: Annotated[str | None, typer.Option(
        "--lang", help="language of the output: zh or en (default: from LC_ALL / LC_MESSAGES / LANG)")] = None,
    version: Annotated[bool, typer.Option(
        "--version", help="print the version and exit", is_eager=True, callback=_version)] = False,
) -> None:
    """suanli (算力): which GPU or NPU to rent for an AI job, how many, how long, at what cost and risk."""
    if lang_ is not None:
        code = _lang_code(lang_)
        if code is None:
            from suanli.errors import InputError

            raise InputError("lang", Message("err.is_not_one_of_zh_en", lang=lang_))
        set_lang(code)


def _readable_types() -> None:
    """Help shows TEXT / NUMBER / INTEGER for values and nothing for on/off flags (typer prints `<bool>`)."""
    from typer.core import TyperArgument, TyperOption

    def display(orig: Callable[..., str | None]) -> Callable[..., str | None]:
        def f(self: Any, ctx: Any) -> str | None:
            if getattr(self, "is_flag", False) or getattr(self, "count", False):
                return None
            label = orig(self, ctx)
            names = {"<str>": "TEXT", "<float>": "NUMBER", "<int>": "INTEGER", "<path>": "PATH"}
            if label is None or label in names:
                return names.get(label or "", label)
            return label.removeprefix("<").removesuffix(">").replace("list[str]", "TEXT").replace("str", "TEXT")
        return f

    def default_string(orig: Callable[..., str]) -> Callable[..., str]:
        """A whole-number default as it is typed: `[default: 12]`, not typer's `[default: 12.0]`."""
        def f(self: Any, *, default_value: Any, **kw: Any) -> str:
            if isinstance(default_value, float) and default_value.is_integer() and abs(default_value) < 1e15:
                default_value = int(default_value)
            return orig(self, default_value=default_value, **kw)
        return f

    for cls in (TyperOption, TyperArgument):
        if not getattr(cls, "_suanli_readable", False):
            cls.display_type_rich = display(cls.display_type_rich)  # type: ignore[method-assign]
            cls._get_default_string = default_string(cls._get_default_string)  # type: ignore[method-assign]
            setattr(cls, "_suanli_readable", True)


_readable_types()


# Help in the run's language. English help is the source's own text (`help=` and docstrings), printed as typer
# prints it. In Chinese every option's help is the catalog's `help.<command>.<flag>` (the command's words joined by
# dots, `suanli` for the root; an argument by its name), or `help.<flag>` where every command words it alike; a
# command's text `cmd.<command>` (first paragraph) and `cmd.<command>.more` (the rest). en.json holds the English
# text under the same id: a translation is used only while it is the translation of the help the source has now
# (a changed English help shows in English until zh.json follows; tests/unit/cli/test_help_zh.py catches it).
# The catalog is read only when help prints.
def help_key_candidates(path: str, param: Any) -> tuple[str, str]:
    """The catalog ids of one option's help, the command's own first: `help.plan.requests-per-s`, `help.json`."""
    longs = [o.removeprefix("--") for o in getattr(param, "opts", ()) if o.startswith("--")]
    name = longs[0] if longs else str(param.name)
    return f"help.{path}.{name}", f"help.{name}"


def _help_path(ctx: Any) -> str:
    """The command's words after the program's, joined by dots (`offers.import`); `suanli` for the root."""
    words: list[str] = []
    while ctx.parent is not None:
        words.insert(0, ctx.info_name)
        ctx = ctx.parent
    return ".".join(words) or "suanli"


def _command_text(path: str, text: str | None, zh: dict[str, str], en: dict[str, str]) -> str | None:
    """A command's docstring in Chinese: `cmd.<path>` for its first paragraph, `cmd.<path>.more` for the rest,
    each only where en.json quotes what the docstring says now (lines of a paragraph joined by spaces)."""
    import inspect

    first, *rest = [p.replace("\n", " ").strip() for p in inspect.cleandoc(text or "").split("\n\n")]
    out = [zh[f"cmd.{path}"]] if first and en.get(f"cmd.{path}") == first else []
    if rest:
        more = f"cmd.{path}.more"
        out += [zh[more]] if en.get(more) == "\n\n".join(rest) else []
    return "\n\n".join(out) if out and len(out) == 1 + bool(rest) else None


@contextlib.contextmanager
def _help_in_chinese(cmd: Any, ctx: Any) -> Iterator[None]:
    """While `cmd`'s help prints in Chinese: its text, its options' help, its sub-commands' one-line help, the
    usage line and typer's panel titles from the catalog; everything put back after."""
    if lang() != "zh":
        yield
        return
    import typer.rich_utils as ru

    from suanli.i18n import messages

    zh, en = messages("zh"), messages("en")
    path = _help_path(ctx)
    saved: list[tuple[Any, str, Any]] = []
    missing = object()

    def swap(obj: Any, attr: str, new: Any) -> None:
        if new is not None:
            saved.append((obj, attr, obj.__dict__.get(attr, missing) if hasattr(obj, "__dict__") else getattr(obj, attr)))
            setattr(obj, attr, new)

    for p in cmd.get_params(ctx):
        ids = [k for k in help_key_candidates(path, p) if p.help and en.get(k) == p.help and k in zh]
        swap(p, "help", zh[ids[0]] if ids else None)
    if path != "suanli":  # the root's text is the catalog's already (LazyGroup.format_help)
        swap(cmd, "help", _command_text(path, cmd.help, zh, en))
    for name, sub in (getattr(cmd, "commands", None) or {}).items():
        swap(sub, "help", _command_text(f"{path}.{name}" if path != "suanli" else name, sub.help, zh, en))
    usage = cmd.get_usage(ctx)  # "用法：suanli plan [OPTIONS]", as a usage error says it (error.cli.usage_line)
    if usage.startswith("Usage:"):
        swap(cmd, "get_usage", lambda _ctx: zh["error.cli.usage_line"].format(usage=usage.removeprefix("Usage:").strip()))
    for attr, msg_id in (("OPTIONS_PANEL_TITLE", "cli.help.options"), ("ARGUMENTS_PANEL_TITLE", "cli.help.arguments"),
                         ("COMMANDS_PANEL_TITLE", "cli.help.commands"), ("DEFAULT_STRING", "cli.help.default"),
                         ("REQUIRED_LONG_STRING", "cli.help.required")):
        swap(ru, attr, zh[msg_id])
    # lines break as every Chinese paragraph does (output._breaker, installed for rich's wrapping at import)
    try:
        yield
    finally:
        for obj, attr, old in reversed(saved):
            if old is missing:
                delattr(obj, attr)
            else:
                setattr(obj, attr, old)


# Help that lists catalog data says it as a field of its template, filled when help prints (either language, after
# `_help_in_chinese` picked the template): `{libraries}`, every library --uses takes (migrate.libraries.uses_names).
def _library_names() -> str:
    from suanli.migrate.libraries import uses_names

    return uses_names()


_HELP_VALUES: dict[str, Callable[[], str]] = {"libraries": _library_names}


def _help_values(template: str) -> dict[str, str]:
    return {n: value() for n, value in _HELP_VALUES.items() if "{" + n + "}" in template}


def filled_help(msg_id: str, lang: str) -> str:
    """Catalog help `msg_id` in `lang` as help prints it: its `_HELP_VALUES` fields filled from the data (a list
    rendered as the catalog renders one: 、 between names in Chinese); a help with none, as the catalog has it."""
    from suanli.i18n import Message, messages, render

    template = messages(lang).get(msg_id) or messages("en").get(msg_id, msg_id)
    values = _help_values(template)
    return render(Message(msg_id, values), lang) if values else template


@contextlib.contextmanager
def _help_filled(cmd: Any, ctx: Any) -> Iterator[None]:
    """While `cmd`'s help prints: each option's help with a `_HELP_VALUES` field filled (`filled_help`); put back
    after."""
    from suanli.i18n import messages

    path, code, saved = _help_path(ctx), lang(), []
    for p in cmd.get_params(ctx):
        values = _help_values(p.help or "")
        if not values:
            continue
        ids = [k for k in help_key_candidates(path, p) if messages(code).get(k) == p.help]
        saved.append((p, p.help))
        p.help = filled_help(ids[0], code) if ids else p.help.format_map(values)
    try:
        yield
    finally:
        for p, text in reversed(saved):
            p.help = text


@contextlib.contextmanager
def _help_unquoted() -> Iterator[None]:
    """While help prints (either language): code quoted with backticks in the catalog and the docstrings
    (`suanli bench run`) prints without them, as every other line the CLI prints (output.unquote)."""
    import typer.rich_utils as ru

    from suanli.cli.output import unquote

    make = ru._make_rich_text

    def unquoted(*, text: str, **kw: Any) -> Any:
        return make(text=unquote(text), **kw)

    ru._make_rich_text = unquoted  # type: ignore[assignment]
    try:
        yield
    finally:
        ru._make_rich_text = make  # type: ignore[assignment]


def _translated_help() -> None:
    """Every typer command and group prints its help through `_help_in_chinese`."""
    from typer.core import TyperCommand

    for cls in (TyperCommand, TyperGroup):
        if not cls.__dict__.get("_suanli_help", False):
            def format_help(self: Any, ctx: Any, formatter: Any, _orig: Any = cls.format_help) -> None:
                with _help_in_chinese(self, ctx), _help_filled(self, ctx), _help_unquoted():
                    _orig(self, ctx, formatter)
            cls.format_help = format_help  # type: ignore[method-assign]
            setattr(cls, "_suanli_help", True)


_translated_help()


# Start-up and the garbage collector. Start-up (imports, ~70 pydantic classes and their validators, the
# catalog's models) allocates objects that live as long as the process, and the cyclic collector walked them
# again and again: ~45 ms of `suanli estimate`'s ~0.3 s, including a full pass over everything at exit. So the
# first `run()` of a process collects nothing until the command's module is loaded, then moves everything
# alive into the permanent generation (`gc.freeze`, Python docs "gc") and collects as usual from there on:
# a long command (`serve`, `bench run`, `scenarios`) is collected as before, only not over its start-up.
_GC_DEFERRED = False
_GC_STARTED = False


def _end_startup() -> None:
    global _GC_DEFERRED
    if _GC_DEFERRED:
        _GC_DEFERRED = False
        gc.freeze()
        gc.enable()


@contextlib.contextmanager
def _no_pydantic_plugins() -> Iterator[None]:
    """A command runs without pydantic's plugins, unless the user set PYDANTIC_DISABLE_PLUGINS (an empty value
    keeps every plugin). pydantic looks for them when it builds its first validator: it reads the entry points of
    every installed distribution (~90 here: 22 M of `suanli estimate`'s 1,477 M instructions, valgrind), and suanli
    uses none. PYDANTIC_DISABLE_PLUGINS=1 skips that search (pydantic docs, "Plugins"; read at each validator
    pydantic 2.14 builds, pydantic/plugin/_loader.py get_plugins: typer disables them the same way around its
    option parsers). The variable is removed again when the command ends."""
    if "PYDANTIC_DISABLE_PLUGINS" in os.environ:
        yield
        return
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "1"
    try:
        yield
    finally:
        os.environ.pop("PYDANTIC_DISABLE_PLUGINS", None)


def run() -> None:
    """Console-script entry point: a SuanliError or invalid input becomes one red line on stderr and exit
    status 2; usage errors print click's usage line; never a traceback for anything the user typed."""
    global _GC_DEFERRED, _GC_STARTED
    if not _GC_STARTED and gc.isenabled():  # once per process (a test may call run() thousands of times)
        _GC_STARTED = _GC_DEFERRED = True
        gc.disable()
    try:
        with env_lang_read(), _no_pydantic_plugins():
            _run()
    finally:
        if _GC_DEFERRED:  # no command ran (`--help`, a usage error): collect as usual, nothing frozen
            _GC_DEFERRED = False
            gc.enable()


def _run() -> None:
    try:
        rc = app(standalone_mode=False)  # click returns a typer.Exit's code instead of raising it
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except SuanliError as e:
        from suanli.errors import error_text

        _fail(_field_line(error_text(e, lang()), e), e.detail)
    except _pydantic_validation_error() as e:  # a model built straight from user input (bench spec, API-shaped options)
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or e.title
        _fail(f"{field}: {str(err['msg']).removeprefix('Value error, ')}")
    except ModuleNotFoundError as e:
        extra = _EXTRAS.get((e.name or "").split(".")[0])
        if extra is None:
            raise
        from suanli.i18n import t

        _fail(t("error.extra_missing", lang(), module=e.name, extra=extra))
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:
        # typer vendors its own click: match click's exceptions by what they do, not by their class
        if hasattr(e, "show") and hasattr(e, "exit_code"):
            if type(e).__name__ == "NoArgsIsHelpError":  # `suanli gpus` alone … help, as click prints it
                e.show()
                sys.exit(e.exit_code or 2)
            _lang_from_argv()  # raised maybe before the group's callback read `--lang`
            ctx = getattr(e, "ctx", None)
            if ctx is not None and type(e).__name__ != "BadParameter":  # click's usage line and help hint, then
                # the one line with the label every suanli error has (`errors.error_label`), not click's "Error:"
                from suanli.i18n import t

                # "用法：suanli plan [OPTIONS]" and "运行“suanli plan --help”查看帮助。": full-width colon, no space
                # after it, and Chinese quotes, as every other zh label (output.label)
                hint = t("error.cli.help_try", lang(), command=f"{ctx.command_path} {ctx.help_option_names[0]}") \
                    if ctx.help_option_names else ""
                usage = ctx.get_usage()
                if usage.startswith("Usage:"):
                    usage = t("error.cli.usage_line", lang(), usage=usage.removeprefix("Usage:").strip())
                from rich.markup import escape

                _err(escape(usage + ("\n" + hint if hint else "") + "\n"))  # wrapped as the error line
            _fail(_usage_line(e))
        if type(e).__name__ in ("Exit", "Abort"):
            sys.exit(getattr(e, "exit_code", 1))
        raise


_MISSING_VALUE = re.compile(r"Option '(.+)' requires (?:an argument|\d+ arguments)\.$")
_NO_VALUE = re.compile(r"Option '(.+)' does not take a value\.$")
_NO_COMMAND = re.compile(r"No such command '(.+)'\.")
_EXTRA_ARGS = re.compile(r"Got unexpected extra argument(?:\(s\)|s)? \((.*)\)$")


def _usage_line(e: Any) -> str:
    """A click usage error (typer's vendored click: matched by class name) as one line in this run's language:
    UsageError, NoSuchOption, BadOptionUsage, BadParameter (the number parser's pydantic error as
    `errors.validation_message` words it, naming the flag), MissingParameter and an unknown command (with the
    closest commands). Anything else keeps click's English text."""
    from suanli.errors import did_you_mean, validation_message
    from suanli.i18n import render

    kind, text = type(e).__name__, str(getattr(e, "message", "") or "")
    param = getattr(e, "param", None)
    msg: Message | None = None
    if kind == "NoSuchOption":
        opts = sorted(getattr(e, "possibilities", None) or ())
        msg = _global_option_after_command(e) or (
            Message("error.cli.no_such_option_hint", option=e.option_name, names=list_sep().join(opts)) if opts
            else Message("error.cli.no_such_option", option=e.option_name))
    elif kind == "MissingParameter":
        hint = getattr(e, "param_hint", None) or (param.get_error_hint() if param is not None else "")
        hint = hint if isinstance(hint, str) else " / ".join(repr(x) for x in hint)
        msg = Message("error.cli.missing_argument" if getattr(param, "param_type_name", "") == "argument"
                      else "error.cli.missing_option", name=hint)
    elif kind == "BadParameter":
        cause = e.__cause__
        said = (validation_message(cause.errors()[0]) if cause is not None and hasattr(cause, "errors")
                and cause.errors() else Message("error.v.other", msg=text))
        flag = (getattr(param, "opts", None) or [getattr(param, "name", None) or ""])[0]
        if flag and lang() == "zh" and getattr(param, "param_type_name", "") == "argument":
            from suanli.i18n import messages  # an argument has no flag to keep: its Chinese name (field.<name>)

            if label := messages("zh").get("field." + flag):
                return f"{label.strip('“”')}：{render(said, lang())}"
        return f"{flag}{_field_sep()}{render(said, lang())}" if flag else render(said, lang())
    elif (m := _MISSING_VALUE.match(text)) is not None:
        msg = Message("error.cli.needs_value", option=m.group(1))
    elif (m := _NO_VALUE.match(text)) is not None:
        msg = Message("error.cli.takes_no_value", option=m.group(1))
    elif (m := _NO_COMMAND.match(text)) is not None:
        ctx = getattr(e, "ctx", None)
        group = getattr(ctx, "command", None)
        names = group.list_commands(ctx) if group is not None and hasattr(group, "list_commands") else list(COMMANDS)
        close = did_you_mean(m.group(1), names)
        msg = (Message("error.cli.no_such_command_hint", name=repr(m.group(1)), names=list_sep().join(map(repr, close)))
               if close else Message("error.cli.no_such_command", name=repr(m.group(1))))
    elif (m := _EXTRA_ARGS.match(text)) is not None:
        msg = Message("error.cli.extra_args", args=m.group(1))
    if msg is None:
        return e.format_message() if hasattr(e, "format_message") else text
    return render(msg, lang())


def _global_option_after_command(e: Any) -> Message | None:
    """An option of `suanli` itself (--lang, --version, ...) typed after a command (`suanli plan ... --lang zh`):
    click only knows the command's options there, so say where it goes — before the command, with the value
    typed (`suanli --lang zh plan …`) — instead of the closest option of the command (--billing)."""
    ctx = getattr(e, "ctx", None)
    if ctx is None or ctx.parent is None:  # at the top level the option is not a global one
        return None
    root = ctx.find_root()
    param = next((p for p in root.command.params if e.option_name in getattr(p, "opts", ())
                  and e.option_name not in ctx.help_option_names), None)
    if param is None:
        return None
    argv = sys.argv[1:]
    value = ""
    if not getattr(param, "is_flag", False):  # the value as typed: `--lang zh` or `--lang=zh`
        for i, a in enumerate(argv):
            if a == e.option_name and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                value = " " + argv[i + 1]
            elif a.startswith(e.option_name + "="):
                value = " " + a.split("=", 1)[1]
    sub: list[str] = []
    c = ctx  # the command's words after the program's (whose info_name depends on how it was started)
    while c.parent is not None:
        sub.insert(0, c.info_name)
        c = c.parent
    command = " ".join(sub)
    example = (f"suanli {e.option_name}" if getattr(param, "is_eager", False)  # --version: runs alone
               else f"suanli {e.option_name}{value} {command} …")
    return Message("error.cli.global_option", option=e.option_name, command=f"suanli {command}", example=example)


def _pydantic_validation_error() -> Any:
    """pydantic's ValidationError once a command has imported pydantic (`--help` does not), else nothing."""
    mod = sys.modules.get("pydantic")
    return mod.ValidationError if mod is not None else ()


_EXTRAS = {
    "sqlalchemy": "service", "alembic": "service", "fastapi": "service", "uvicorn": "service",
    "psycopg": "service", "platformdirs": "service", "swagger_ui_bundle": "service", "httpx": "service",
    "torch": "torch", "transformers": "torch", "ray": "ray", "peft": "lora", "playwright": "e2e",
}


def error_head() -> str:
    """The label every error line starts with, colon and space included: "error: ", and "错误：" in Chinese
    (full-width colon, no space, as every other zh label: `output.label`); `errors.error_label` is its word."""
    from suanli.cli.output import label

    return label("cli.label.error")


def _field_sep() -> str:
    """What follows the field an error line names: ": ", and "：" in Chinese (full-width colon, no space, as
    every zh label: `output.label`)."""
    return "：" if lang() == "zh" else ": "


def _options(cmd: Any) -> Iterator[Any]:
    """The options of a click command and, for a group, of every command under it."""
    yield from (p for p in getattr(cmd, "params", ()) if getattr(p, "param_type_name", "") == "option")
    for sub in (getattr(cmd, "commands", None) or {}).values():
        yield from _options(sub)


def _flag_of(field: str) -> str | None:
    """The flag a refused input was typed with, as the CLI names it (`i18n.field_name`, surface cli): the
    catalog's `flag.<name>` (`budget_cny` -> --budget) where the command has that flag, else the option of the
    command that ran (or of `suanli` itself: --lang) whose flag or parameter is the field (`requests-per-s`,
    `requests_per_s` -> --requests-per-s); None for a field no flag sets (a file, an id, a field of a file)."""
    from suanli.i18n import field_name

    typed = sys.argv[1:]
    opts = [*_options(typer.main.get_command(app)), *_options(_RUNNING)]
    longs = {o for p in opts for o in p.opts if o.startswith("--")}
    key = field.replace("-", "_")
    named = field_name(key, lang(), "cli")
    # only the flags this command has: tco's --hours alone, not "--hours/--days" (tco has no --days)
    if named != key and (has := [f for f in named.split("/") if f in longs]):
        return "/".join(has)
    for p in opts:
        names = [o for o in p.opts if o.startswith("--")]
        if names and ("--" + field.replace("_", "-") in names or p.name == key):
            return next((o for o in names if o in typed or any(a.startswith(o + "=") for a in typed)), names[0])
    return None


def _field_line(text: str, e: SuanliError) -> str:
    """The error line with its `field: ` label named as the user typed it: the flag (`--requests-per-s: …`,
    `--task：…` in Chinese) where a flag sets the field (`_flag_of`); in Chinese, an input without a flag (a
    file, an import or plan id: arguments) by its Chinese name (`field.<name>`, quotes dropped: `文件：'x.csv'
    不存在`); anything else as it is."""
    field = getattr(e, "field", None)
    if not isinstance(field, str) or not field or not text.startswith(field + ": "):
        return text
    rest = text.removeprefix(field + ": ")
    flag = _flag_of(field)
    if flag is not None:
        return f"{flag}{_field_sep()}{rest}"
    if lang() != "zh":
        return text
    from suanli.i18n import messages

    label = messages("zh").get("field." + field.replace("-", "_"))
    return f"{label.strip('“”')}：{rest}" if label else text


def _errors_wrap() -> bool:
    """Whether error lines wrap at the terminal's width: on a terminal, yes; piped or captured (a script, a log
    file), each error stays one line, as a script reads it."""
    from suanli.cli.output import err_console

    return err_console.is_terminal


def _err(text: str) -> None:
    """One error line (rich markup) on stderr: on a terminal wrapped at its width by the one line breaker
    (`output.echo`: at spaces in English, between characters in Chinese, never inside a word, flag or number),
    never by the terminal mid-word; else one line."""
    if _errors_wrap():
        echo(text, err=True)
    else:
        from suanli.cli.output import err_console

        err_console.print(text, highlight=False, soft_wrap=True)


def _fail(message: str, detail: Any = None) -> None:
    from rich.markup import escape

    _err(f"[red]{error_head()}[/red]{escape(message)}")
    if detail is not None:  # the rest of a long refusal (SuanliError.detail), dim, below the one line
        from suanli.i18n import render

        _err(f"[dim]{escape(render(detail, lang()))}[/dim]")
    sys.exit(2)


if __name__ == "__main__":
    run()
