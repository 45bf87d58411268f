"""Writes the Iceberg and Delta test tables beside this script with the formats' own libraries.

    python3 -m venv /tmp/lake-venv
    /tmp/lake-venv/bin/pip install 'pyiceberg[sql-sqlite,pyarrow]==0.12.0' 'deltalake==1.6.6'
    /tmp/lake-venv/bin/python make-tables.py

iceberg/orders (pyiceberg, SQL catalog on SQLite, the catalog file not kept: tables are read by folder), 6 snapshots:
  1 append ids 1-3, 2 append ids 4-5, 3 delete id 2 (pyiceberg rewrites the file), 4 rename name -> label, add note,
  append id 6, 5 append id 7, 6 delete id 6 (its file leaves the table). Tests hide the metadata files of snapshots 5
  and 6 to commit them while a run is down.
delta/events (delta-rs), partitioned by region, versions 0-4:
  0 write ids 1-3, 1 append ids 4-5, 2 delete id 2, 3 append id 6 with a new column score (schema merge),
  4 append id 7 (tests hide 00000000000000000004.json the same way).
iceberg/appends and delta/appends, for new-snapshots: appends of ids 1-2, 3-4 and 5, then a delete of id 1.
iceberg/small (`make-tables.py small` writes only it): one snapshot of 40 data files of one row each (ids 1-40),
  for the grouping of small files.
iceberg/deletes (`make-tables.py deletes` writes only it), merge-on-read: 1 append ids 1-5, 2 append ids 6-10,
  3 (operation delete) a position delete file (id 2's row of the first file) and an equality delete file (id = 7),
  4 append id 7 again (a later sequence number: the equality delete does not touch it). pyiceberg writes only
  copy-on-write deletes, so snapshot 3's files are written here and committed through a manifest of delete content.
iceberg/types (`make-tables.py types` writes only it): Iceberg's uuid, time, date, timestamp, decimal(38,10),
  fixed, and nested struct, list and map columns, one snapshot.
"""
import contextlib
import datetime
import decimal
import os
import shutil
import tempfile
import uuid

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.types import StringType

HERE = os.path.dirname(os.path.abspath(__file__))
UTC = datetime.timezone.utc


@contextlib.contextmanager
def iceberg_catalog(root, name):
    """A SQL catalog on SQLite (not kept) over root/iceberg, for the table `ns.<name>`; the table's folder is moved to
    root/iceberg/<name> afterwards (tests read tables by folder)."""
    catalog_dir = tempfile.mkdtemp()
    warehouse = os.path.join(root, "iceberg")
    os.makedirs(warehouse, exist_ok=True)
    shutil.rmtree(os.path.join(warehouse, name), ignore_errors=True)
    catalog = SqlCatalog("fixtures", uri=f"sqlite:///{catalog_dir}/catalog.db", warehouse=f"file://{warehouse}")
    catalog.create_namespace("ns")
    yield catalog
    shutil.move(os.path.join(warehouse, "ns", name), os.path.join(warehouse, name))
    os.rmdir(os.path.join(warehouse, "ns"))
    shutil.rmtree(catalog_dir)


def orders(ids, schema, extra=None):
    columns = {
        "id": ids,
        "name": [f"order {i}" for i in ids],
        "amount": [decimal.Decimal(i) * decimal.Decimal("10.25") for i in ids],
        "placed": [datetime.datetime(2026, 1, i, 12, 30, tzinfo=UTC) for i in ids],
        "ref": [uuid.UUID(int=i).bytes for i in ids],
    }
    if extra:
        columns.update(extra)
    return pa.table(columns, schema=schema)


def iceberg(root):
    with iceberg_catalog(root, "orders") as catalog:
        schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.decimal128(12, 2)),
                            ("placed", pa.timestamp("us", tz="UTC")), ("ref", pa.binary(16))])
        table = catalog.create_table("ns.orders", schema=schema)
        table.append(orders([1, 2, 3], schema))
        table.append(orders([4, 5], schema))
        table.delete("id = 2")
        with table.update_schema() as update:
            update.rename_column("name", "label")
            update.add_column("note", StringType())
        table = catalog.load_table("ns.orders")
        evolved = pa.schema([("id", pa.int64()), ("label", pa.string()), ("amount", pa.decimal128(12, 2)),
                             ("placed", pa.timestamp("us", tz="UTC")), ("ref", pa.binary(16)), ("note", pa.string())])
        six = orders([6], schema).rename_columns(["id", "label", "amount", "placed", "ref"])
        table.append(six.append_column("note", pa.array(["evolved"])).cast(evolved))
        seven = orders([7], schema).rename_columns(["id", "label", "amount", "placed", "ref"])
        table.append(seven.append_column("note", pa.array(["late"])).cast(evolved))
        table.delete("id = 6")
        for snapshot in table.snapshots():
            print("iceberg snapshot", snapshot.snapshot_id, snapshot.summary.operation)
        # the folder layout the tests read: iceberg/orders/{metadata,data}


def delta(root):
    path = os.path.join(root, "delta", "events")
    schema = pa.schema([("id", pa.int64()), ("region", pa.string()), ("name", pa.string())])

    def events(ids, extra=None):
        columns = {"id": ids, "region": ["eu" if i % 2 else "us" for i in ids], "name": [f"event {i}" for i in ids]}
        return pa.table(columns, schema=schema)

    write_deltalake(path, events([1, 2, 3]), partition_by=["region"])
    write_deltalake(path, events([4, 5]), mode="append")
    DeltaTable(path).delete("id = 2")
    six = events([6]).append_column("score", pa.array([1.5]))
    write_deltalake(path, six, mode="append", schema_mode="merge")
    seven = events([7]).append_column("score", pa.array([2.5]))
    write_deltalake(path, seven, mode="append")
    print("delta version", DeltaTable(path).version())


def appends(root):
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])

    def rows(ids):
        return pa.table({"id": ids, "name": [f"row {i}" for i in ids]}, schema=schema)

    with iceberg_catalog(root, "appends") as catalog:
        table = catalog.create_table("ns.appends", schema=schema)
        for ids in ([1, 2], [3, 4], [5]):
            table.append(rows(ids))
        table.delete("id = 1")

    path = os.path.join(root, "delta", "appends")
    write_deltalake(path, rows([1, 2]))
    for ids in ([3, 4], [5]):
        write_deltalake(path, rows(ids), mode="append")
    DeltaTable(path).delete("id = 1")


def types(root):
    from pyiceberg.schema import Schema
    from pyiceberg.types import (DateType, DecimalType, FixedType, IntegerType, ListType, LongType, MapType,
                                 NestedField, StructType, TimestampType, TimeType, UUIDType)
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "u", UUIDType()),
        NestedField(3, "t", TimeType()),
        NestedField(4, "d", DateType()),
        NestedField(5, "ts", TimestampType()),
        NestedField(6, "big", DecimalType(38, 10)),
        NestedField(7, "f", FixedType(4)),
        NestedField(8, "s", StructType(NestedField(9, "a", IntegerType()), NestedField(10, "b", StringType()))),
        NestedField(11, "l", ListType(12, LongType())),
        NestedField(13, "m", MapType(14, StringType(), 15, LongType())),
    )
    with iceberg_catalog(root, "types") as catalog:
        table = catalog.create_table("ns.types", schema=schema)
        arrow = table.schema().as_arrow()
        table.append(pa.table({
            "id": [1, 2],
            "u": [uuid.UUID(int=1).bytes, None],
            "t": [datetime.time(12, 30, 15, 123456), None],
            "d": [datetime.date(2026, 12, 6), None],
            "ts": [datetime.datetime(2026, 12, 6, 12, 30, 15, 123456), None],
            "big": [decimal.Decimal("1234567890123456789012345678.0123456789"), None],
            "f": [b"\x00\x01\x02\x03", None],
            "s": [{"a": 1, "b": "x"}, None],
            "l": [[1, 2, 3], None],
            "m": [[("k", 1)], None],
        }, schema=arrow))


def deletes(root):
    import pyarrow.parquet as pq
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat, ManifestContent, ManifestWriterV2
    from pyiceberg.table.snapshots import Operation
    from pyiceberg.typedef import Record

    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])

    def rows(ids, name="row {}"):
        return pa.table({"id": ids, "name": [name.format(i) for i in ids]}, schema=schema)

    with iceberg_catalog(root, "deletes") as catalog:
        table = catalog.create_table("ns.deletes", schema=schema, properties={"format-version": "2"})
        table.append(rows([1, 2, 3, 4, 5]))
        table.append(rows([6, 7, 8, 9, 10]))
        first = next(t.file.file_path for t in table.scan().plan_files()
                     if 2 in pq.read_table(t.file.file_path.removeprefix("file://")).column("id").to_pylist())
        id_field = table.schema().find_field("id").field_id

        def delete_file(name, arrow, content, **extra):
            path = f"{table.location()}/data/{name}"
            pq.write_table(arrow, path.removeprefix("file://"))
            return DataFile.from_args(content=content, file_path=path, file_format=FileFormat.PARQUET,
                                      partition=Record(), record_count=arrow.num_rows,
                                      file_size_in_bytes=os.path.getsize(path.removeprefix("file://")), **extra)

        position = delete_file("position-deletes.parquet", pa.table({"file_path": [first], "pos": [1]}, schema=pa.schema([
            pa.field("file_path", pa.string(), nullable=False, metadata={"PARQUET:field_id": "2147483546"}),
            pa.field("pos", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "2147483545"})])),
            DataFileContent.POSITION_DELETES)
        equality = delete_file("equality-deletes.parquet", pa.table({"id": [7]}, schema=pa.schema([
            pa.field("id", pa.int64(), nullable=False, metadata={"PARQUET:field_id": str(id_field)})])),
            DataFileContent.EQUALITY_DELETES, equality_ids=[id_field])
        data_content, data_meta = ManifestWriterV2.content, ManifestWriterV2._meta
        ManifestWriterV2.content = lambda self: ManifestContent.DELETES
        ManifestWriterV2._meta = property(lambda self: {**data_meta.fget(self), "content": "deletes"})
        try:
            with table.transaction() as tx:
                with tx.update_snapshot().fast_append() as commit:
                    commit._operation = Operation.DELETE
                    commit.append_data_file(position)
                    commit.append_data_file(equality)
        finally:
            ManifestWriterV2.content, ManifestWriterV2._meta = data_content, data_meta
        table = catalog.load_table("ns.deletes")
        table.append(rows([7], "row {} again"))


def small(root):
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    with iceberg_catalog(root, "small") as catalog:
        # a tiny target file size: pyiceberg writes each row as a data file of its own
        table = catalog.create_table("ns.small", schema=schema, properties={"write.target-file-size-bytes": "1"})
        table.append(pa.concat_tables([pa.table({"id": ids, "name": [f"row {i}" for i in ids]}, schema=schema)
                                       for ids in (list(range(k * 10 + 1, k * 10 + 11)) for k in range(4))]))


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["types"]:
        types(HERE)
        sys.exit(0)
    if sys.argv[1:] == ["small"]:
        small(HERE)
        sys.exit(0)
    if sys.argv[1:] == ["deletes"]:
        deletes(HERE)
        sys.exit(0)
    for name in ("iceberg", "delta"):
        shutil.rmtree(os.path.join(HERE, name), ignore_errors=True)
    iceberg(HERE)
    delta(HERE)
    appends(HERE)
    types(HERE)
    small(HERE)
    deletes(HERE)
