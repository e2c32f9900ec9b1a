"""Bounded parsing of the files users hand in (JSON configs, YAML workloads and offers): size and nesting
depth are checked before anything is built, and every decoding problem is one line naming the file.

A 100,000-deep JSON array or a 5,000-deep YAML mapping would otherwise end in a RecursionError; NaN and
Infinity are not JSON; bytes that are not UTF-8 are reported with their offset.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog, ModelArch
from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "load_model_arg", "parse_json", "parse_yaml", "read_file_bytes", "yaml_shape_ok"]

MAX_FILE_BYTES = 20 * 2**20  # 20 MiB: a config.json is ~1 KB, the largest offers file we accept is 100,000 rows
MAX_DEPTH = 64  # Hugging Face configs nest 3–4 levels; plan files 2
MAX_ALIASES = 100  # YAML anchors expand to shared objects; a few are legitimate, thousands are a bomb


def read_file_bytes(path: str, field: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    p = Path(path)
    if not p.is_file():
        raise InputError(field, Message("err.does_not_exist_or_is_not", path=path))
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise InputError(field, Message("err.is_bytes_the_limit_is", path=path, size=size, max_bytes=max_bytes))
        return p.read_bytes()
    except OSError as e:
        raise InputError(field, Message("err.cannot_read_2", path=path, v=e.strerror or e)) from None


def _text(data: bytes | str, name: str, field: str, max_bytes: int) -> str:
    if len(data) > max_bytes:
        raise InputError(field, Message("err.is_larger_than_bytes", name=name, max_bytes=max_bytes))
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(field, Message("err.is_not_utf_text_at_byte", name=name, e_reason=e.reason, e_start=e.start)) from None


def _json_depth_ok(text: str, max_depth: int) -> bool:
    """Bracket depth outside strings, without recursion."""
    depth = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(data: bytes | str, name: str, field: str, max_bytes: int = MAX_FILE_BYTES,
               max_depth: int = MAX_DEPTH) -> Any:
    text = _text(data, name, field, max_bytes)
    if not _json_depth_ok(text, max_depth):
        raise InputError(field, Message("err.nests_deeper_than_levels_2", name=name, max_depth=max_depth))
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise InputError(field, Message("err.is_not_valid_json_at_line", name=name, e_lineno=e.lineno, e_colno=e.colno, e_msg=e.msg)) from None
    except (ValueError, RecursionError) as e:
        raise InputError(field, Message("err.is_not_valid_json", name=name, e=e)) from None


def yaml_shape_ok(text: str, name: str, field: str, max_depth: int = MAX_DEPTH) -> None:
    """Walk YAML events (an iterative parser) to bound depth and aliases before composing any node."""
    import yaml  # here, not with the module: `suanli estimate` reads no YAML (~8 ms)

    depth = aliases = 0
    try:
        for ev in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(ev, yaml.CollectionStartEvent):
                depth += 1
                if depth > max_depth:
                    raise InputError(field, Message("err.nests_deeper_than_levels_2", name=name, max_depth=max_depth))
            elif isinstance(ev, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(ev, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise InputError(field, Message("err.uses_more_than_yaml_aliases", name=name, max_aliases=MAX_ALIASES))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = Message("err.yaml_at_line", line=mark.line + 1) if mark is not None else ""
        raise InputError(field, Message("err.is_not_valid_yaml", name=name, where=where, v=getattr(e, 'problem', None) or e)) from None


def parse_yaml(data: bytes | str, name: str, field: str, max_bytes: int = MAX_FILE_BYTES,
               max_depth: int = MAX_DEPTH) -> Any:
    import yaml

    text = _text(data, name, field, max_bytes)
    yaml_shape_ok(text, name, field, max_depth)
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = Message("err.yaml_at_line", line=mark.line + 1) if mark is not None else ""
        raise InputError(field, Message("err.is_not_valid_yaml", name=name, where=where, v=getattr(e, 'problem', None) or e)) from None
    except (RecursionError, ValueError, OverflowError) as e:
        raise InputError(field, Message("err.cannot_be_read_as_yaml", name=name, name2=type(e).__name__)) from None
    _finite_or_raise(doc, name, field)
    return doc


def _finite_or_raise(doc: Any, name: str, field: str) -> None:
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, float) and not math.isfinite(x):
            raise InputError(field, Message("err.contains_numbers_must_be_finite", name=name, x=x))
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)


def load_model_arg(cat: Catalog, name: str, field: str = "model") -> ModelArch:
    """A preset name, or a path to a Hugging Face config.json (parsed locally, bounded; nothing is downloaded)."""
    if name.endswith(".json"):
        from suanli.catalog.hf_config import config_model_name, from_hf_config

        cfg = parse_json(read_file_bytes(name, field, max_bytes=4 * 2**20), name, field)
        _finite_or_raise(cfg, name, field)
        if not isinstance(cfg, dict):
            raise InputError(field, Message("err.must_be_a_json_object_a", name=name))
        try:
            arch = from_hf_config(cfg, name=config_model_name(cfg, str(Path(name).expanduser())))
        except (TypeError, ValueError, OverflowError, KeyError, AttributeError) as e:
            if isinstance(e, InputError):
                raise
            raise InputError(field, Message("err.is_not_a_usable_config_json", name=name, name2=type(e).__name__, e=e)) from None
        from suanli.migrate.identity import identify_config

        # its aliases are the presets it is by architecture and dimensions, never its file's path, so the adapted
        # lists (plan's and migrate cost's migration effort) see what the file says (migrate check: the same rule)
        return arch.model_copy(update={"aliases": identify_config(cat.models, arch, cfg).names})
    return lookup.model(cat, name)
