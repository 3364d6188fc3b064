"""`new_row(Model, **values)`: a new table row object, the same as `Model(**values)` makes, for code that makes them
by the thousand (a renewal sweep's invoices, intents and events) or on a hot path (a create); `insert_new(session,
*rows)` writes such rows with one INSERT, outside the session's unit of work (a prepared statement,
server/db/prepared.py).

`Model(**values)` on a SQLModel table sets each field through `setattr`: SQLAlchemy's attribute event and history
bookkeeping, then pydantic's `__setattr__`, once per column; that was a fifth of a renewal sweep's time. A new
(transient) object has no history to keep: SQLAlchemy's INSERT reads the values from the instance's `__dict__`, as
it does for rows it loads. So this makes the instance the way SQLAlchemy makes the ones it loads (the class
manager's `new_instance`, which runs SQLModel's `__new__`), then fills `__dict__` with the given values and the
defaults of the others (a default factory is called for each row, as `Model()` does) and records the given fields
as pydantic's fields set. Like `Model(**values)` on a table model, nothing is validated; unlike it, an unknown name
is an error (a misspelt column is never silently dropped). Only for models without relationships or attribute
event listeners (checked once per class): the object then behaves as one made with `Model(**values)`, before and
after it is added to a session.
"""

from __future__ import annotations

from decimal import Decimal
from functools import partial
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from pydantic_core import PydanticUndefined
from sqlalchemy.orm import class_mapper
from sqlalchemy.orm.base import manager_of_class
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession

from server.db.prepared import Prepared

M = TypeVar("M", bound=SQLModel)
R = TypeVar("R")

_Plan = tuple[frozenset[str], dict[str, Any], dict[str, Any]]  # names, plain defaults, default factories
_plans: dict[type[Any], _Plan] = {}
_IMMUTABLE = (str, int, float, bool, bytes, Decimal, tuple, frozenset, type(None))


def _plan(model: type[Any]) -> _Plan:
    found = _plans.get(model)
    if found is not None:
        return found
    mapper = class_mapper(model)
    if mapper.relationships or getattr(model, "__sqlmodel_relationships__", None):
        raise TypeError(f"new_row: {model.__name__} has relationships; use {model.__name__}(**values)")
    for attr in mapper.column_attrs:
        dispatch = getattr(model, attr.key).dispatch
        if dispatch.set or dispatch.init_scalar:
            raise TypeError(f"new_row: {model.__name__}.{attr.key} has attribute listeners")
    if model.model_config.get("extra") == "allow" or model.__pydantic_post_init__:
        raise TypeError(f"new_row: {model.__name__} needs pydantic's construction")
    plain: dict[str, Any] = {}
    factories: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if field.default_factory is not None:
            factories[name] = field.default_factory
        elif field.default is PydanticUndefined:
            continue
        elif isinstance(field.default, _IMMUTABLE):
            plain[name] = field.default
        else:  # a mutable default is copied for each row, as pydantic does
            factories[name] = partial(field.get_default, call_default_factory=True)
    found = _plans[model] = (frozenset(model.model_fields), plain, factories)
    return found


def new_row(model: type[M], **values: Any) -> M:
    """`model(**values)`, without the per-column attribute events (see the module's text)."""
    names, plain, factories = _plan(model)
    unknown = values.keys() - names
    if unknown:
        raise TypeError(f"new_row: {model.__name__} has no field {sorted(unknown)}")
    obj: M = manager_of_class(model).new_instance()
    state = obj.__dict__
    for name, default in plain.items():
        if name not in values:
            state[name] = default
    for name, factory in factories.items():
        if name not in values:
            state[name] = factory()
    state.update(values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    return obj


_inserts: dict[type[Any], tuple[Prepared, tuple[tuple[str, str], ...]]] = {}


def _insert_of(model: type[Any]) -> tuple[Prepared, tuple[tuple[str, str], ...]]:
    """The model's INSERT of every column, and its (attribute, column) pairs."""
    found = _inserts.get(model)
    if found is not None:
        return found
    mapper = class_mapper(model)
    pairs = tuple((attr.key, attr.columns[0].key) for attr in mapper.column_attrs)
    made = _inserts[model] = (Prepared(sa.insert(cast(sa.Table, mapper.local_table))), pairs)
    return made


async def insert_new(session: AsyncSession, *rows: SQLModel) -> None:
    """Writes new rows of one model with one INSERT, outside the session's unit of work: for a row made and written
    once in a unit of work (a created customer, an event), where the unit of work's bookkeeping (identity map,
    dependency sort, history) costs more than the statement. The session flushes what it holds first (autoflush),
    so rows it holds that these refer to are written before them. The rows stay transient: a later read in the unit
    of work loads them like any other row, and a change to one of them is never written."""
    if not rows:
        return
    insert, pairs = _insert_of(type(rows[0]))
    if any(type(row) is not type(rows[0]) for row in rows):
        raise TypeError("insert_new: rows of one model at a time")
    values = [{column: row.__dict__[attr] for attr, column in pairs} for row in rows]
    # One row is executed, not "executed many": the DB-API's executemany path costs more per statement.
    await insert.write(session, values[0] if len(values) == 1 else values)


_loads: dict[type[Any], tuple[Prepared, tuple[str, ...]] | None] = {}


def _load_of(model: type[Any]) -> tuple[Prepared, tuple[str, ...]] | None:
    """The model's SELECT of every column by its primary key, and the attributes in column order; None for a model
    `new_row` cannot make or whose key is not one column."""
    if model not in _loads:
        _loads[model] = _make_load(model)
    return _loads[model]


def _make_load(model: type[Any]) -> tuple[Prepared, tuple[str, ...]] | None:
    try:
        _plan(model)
    except TypeError:
        return None
    mapper = class_mapper(model)
    if len(mapper.primary_key) != 1:
        return None
    attrs = tuple(attr.key for attr in mapper.column_attrs)
    columns = [attr.columns[0] for attr in mapper.column_attrs]
    return Prepared(sa.select(*columns).where(mapper.primary_key[0] == sa.bindparam("key"))), attrs


async def read_by_key(session: AsyncSession, model: type[R], key: Any) -> R | None:
    """`session.get(model, key)` for a read-only unit of work, as a prepared statement (server/db/prepared.py): the
    row comes back as a new object, the way `new_row` makes them, not one the session tracks, so it is never written
    back; read it, never change it. Models `new_row` cannot make are read with `session.get`."""
    load = _load_of(model)
    if load is None:
        return await session.get(model, key)
    select, attrs = load
    rows = await select.rows(session, {"key": key})
    if not rows:
        return None
    return cast(R, new_row(cast(type[SQLModel], model), **dict(zip(attrs, rows[0], strict=True))))
