"""Regression tests of issue 11 at the API level (data loss, silent wrong results, hangs, errors).

Each test is named after the issue's point it guards."""

from __future__ import annotations

import numpy as np
import pytest

from nasarena.benchmarks.nb101_store import RecordImportError, convert, load_store
from nasarena.errors import DataFileError, OutputError
from nasarena.io.nb101_records import EvaluationData, ModelMetrics, NB101Record, serialize_record
from nasarena.io.tfrecord import write_records
from nasarena.spaces.nb101 import unique_cells


def _records(rows=(0, 7), budgets=(108,), trials=3):
    table = unique_cells()
    for row in rows:
        cell = table.cell(row)
        for budget in budgets:
            for _ in range(trials):
                evaluations = (EvaluationData(0, 0, 0.1, 0.1, 0.1), EvaluationData(budget / 2, 5.0, 0.5, 0.5, 0.5),
                               EvaluationData(budget, 10.0, 0.9, 0.9, 0.9))
                yield serialize_record(NB101Record(table.hashes[row], budget, cell.matrix, cell.ops,
                                                   ModelMetrics(evaluations, 1000, 1.0)))


@pytest.fixture()
def source(tmp_path):
    path = tmp_path / "src" / "only108.tfrecord"
    path.parent.mkdir()
    write_records(path, _records())
    return path


def test_point01_import_refuses_foreign_folder(tmp_path, source):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="not an NB101 store"):
        convert(source, foreign)
    assert (foreign / "thesis.tex").read_text() == "precious"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep")
    with pytest.raises(OutputError, match="not an NB101 store"):
        convert(source, a_file)
    assert a_file.read_text() == "keep"


def test_point01_import_refuses_to_replace_its_source(source):
    with pytest.raises(OutputError, match="holds the source"):
        convert(source, source.parent)
    with pytest.raises(OutputError, match="holds the source"):
        convert(source, source)
    assert source.stat().st_size > 0


def test_point01_import_replaces_an_earlier_store(tmp_path, source):
    convert(source, tmp_path / "store")
    convert(source, tmp_path / "store")  # a nasarena store (with its manifest) is replaced
    assert load_store(tmp_path / "store", verify=True).query(0, trial=0).valid_accuracy == pytest.approx(0.9)


def test_point05_import_refuses_an_empty_file(tmp_path):
    (tmp_path / "empty.tfrecord").write_bytes(b"")
    with pytest.raises(RecordImportError, match="no records"):
        convert(tmp_path / "empty.tfrecord", tmp_path / "store")
    assert not (tmp_path / "store").exists()


def test_point05_incomplete_import_says_what_is_missing(tmp_path):
    write_records(tmp_path / "partial.tfrecord", _records(trials=2))  # a trial missing per cell
    convert(tmp_path / "partial.tfrecord", tmp_path / "store")
    description = load_store(tmp_path / "store").describe()
    assert "every value" not in description.real
    assert "423,622 of 423,624 cells are absent" in description.modelled
    assert "2 trials" in description.modelled


def test_point11_corrupt_store_manifest_is_a_data_file_error(tmp_path, source):
    convert(source, tmp_path / "store")
    (tmp_path / "store" / "store.json").write_text("{not json")
    with pytest.raises(DataFileError, match="store.json"):
        load_store(tmp_path / "store")
