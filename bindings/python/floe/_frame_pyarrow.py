"""Scan.to_pandas through pyarrow: floe's own options (decimal_as_float,
dtype_backend, see floe._frame) turned into what pyarrow's to_pandas and
pandas do, so a call means the same with pyarrow installed or not."""


def to_pandas(table, dtype_backend=None, decimal_as_float=False, **kwargs):
    import pyarrow as pa

    if decimal_as_float:
        fields = [pa.field(f.name, pa.float64(), f.nullable, f.metadata) if pa.types.is_decimal(f.type) else f
                  for f in table.schema]
        table = table.cast(pa.schema(fields, metadata=table.schema.metadata))
    if dtype_backend == "numpy_nullable" and "types_mapper" not in kwargs:
        kwargs["types_mapper"] = _nullable_types(pa).get
    elif dtype_backend not in (None, "numpy", "numpy_nullable"):
        kwargs["types_mapper"] = _arrow_dtype  # "pyarrow": pandas' ArrowDtype
    return table.to_pandas(**kwargs)


def _nullable_types(pa):
    """pandas' nullable dtypes by Arrow type, as pandas' own readers map them
    for dtype_backend="numpy_nullable"."""
    import pandas as pd

    return {
        pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(), pa.int64(): pd.Int64Dtype(),
        pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(), pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype(), pa.float32(): pd.Float32Dtype(),
        pa.float64(): pd.Float64Dtype(), pa.string(): pd.StringDtype(), pa.large_string(): pd.StringDtype(),
    }


def _arrow_dtype(arrow_type):
    import pandas as pd

    return pd.ArrowDtype(arrow_type)
