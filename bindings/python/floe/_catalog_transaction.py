"""Multi-table transactions: transactions on several tables of one catalog
committed atomically (floe_catalog_commit_transaction).

    a, b = cat.load_table("db.orders"), cat.load_table("db.totals")
    ta, tb = a.transaction(), b.transaction()
    ta.set_properties(batch="42")
    ta.append(order_rows)
    tb.append(total_rows)
    cat.commit_transaction([ta, tb])   # both tables move, or neither

The transactions are the ones ``Table.transaction()`` makes, not
committed; each hands floe its action list, and floe builds all of them on
the tables' versions and publishes them together (SQL: one database
transaction; REST: POST /v1/{prefix}/transactions/commit), retrying every
one on fresh versions when another writer committed first. FloeError
UNSUPPORTED for a catalog that cannot (a filesystem warehouse, a REST
server without the route), CONFLICT when what a transaction depended on
changed; either way nothing is committed and the files its appends wrote
are deleted."""

import ctypes
import json

from ._calls import _check, _json_arg, _take_string
from ._lib import library


def commit_transaction(catalog, transactions):
    txs = list(transactions)
    for tx in txs:
        if getattr(tx, "_done", None) is None or not hasattr(tx, "_actions"):
            raise TypeError("commit_transaction takes transactions from Table.transaction(), not %r" % (tx,))
        if tx._done:
            raise ValueError("a transaction was already committed")
    if len({id(tx._table) for tx in txs}) != len(txs):
        raise ValueError("a table is in two transactions: put its changes in one")
    # Transactions with nothing to change commit nothing, as alone.
    active = [tx for tx in txs if tx._actions]
    for tx in txs:
        tx._done = True
    if not active:
        return [tx._table for tx in txs]
    entries = []
    written = False
    for tx in active:
        entry = {"actions": tx._actions}
        if tx._token is not None:
            entry["token"] = str(tx._token)
        entries.append(entry)
        written = written or bool(tx._written)
        tx._written = []  # floe deletes them unless they are in the table
    opts = {"discard_refused": True} if written else {}
    handles = (ctypes.c_void_p * len(active))(*[tx._table._handle for tx in active])
    out = ctypes.c_void_p()
    _check(library().floe_catalog_commit_transaction(catalog._handle, handles, len(active), _json_arg(entries),
                                                     _json_arg(opts), ctypes.byref(out)))
    results = json.loads(_take_string(out))["tables"]
    for tx, result in zip(active, results):
        tx._table._metadata = None  # the handle holds the committed version
        tx.result = result
    return [tx._table for tx in txs]
