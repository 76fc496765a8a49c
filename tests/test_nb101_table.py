"""The unique-cell table against the official hashes, and the enumeration that rebuilds it."""

import numpy as np
import pytest

from nasarena.io.packaged import DataIntegrityError, load_arrays, read_manifest
from nasarena.spaces.nb101 import NUM_UNIQUE_CELLS, unique_cells
from nasarena.spaces.nb101.enumeration import labelled_hashes, labellings, masks_to_matrices
from nasarena.spaces.nb101.hashing import fingerprint
from nasarena.spaces.nb101.lookup import LOOKUP_FILE, labelled_table


def test_number_of_unique_cells_is_the_official_one():
    assert len(unique_cells()) == NUM_UNIQUE_CELLS == 423_624


def test_real_keys_sit_at_their_sorted_positions(nb101_slices):
    hashes = unique_cells().hashes
    checked = 0
    for start, columns in nb101_slices:
        keys = np.array(columns["key"])
        assert np.array_equal(hashes[start : start + len(keys)], keys)
        checked += len(keys)
    assert checked == 30_001


def test_hashes_are_sorted_and_unique():
    hashes = unique_cells().hashes
    assert np.all(hashes[1:] > hashes[:-1])


def test_index_maps_hash_to_row():
    table = unique_cells()
    for row in (0, 1, 20_000, 423_623):
        assert table.index_of(table.hashes[row]) == row
        assert table.index[table.hashes[row]] == row
    with pytest.raises(KeyError, match="not the hash of a cell"):
        table.index_of("f" * 32)


def test_canonical_cells_hash_to_their_row_by_the_reference_algorithm(rng):
    table = unique_cells()
    for row in rng.choice(len(table), size=300, replace=False):
        cell = table.cell(int(row))
        assert fingerprint(cell.matrix, cell.labels) == table.hashes[row]
        assert cell.num_vertices == table.num_vertices[row]
        assert cell.num_edges == table.num_edges[row]


def test_canonical_representative_is_the_first_in_enumeration_order():
    # the first cells met are 2-vertex (1), then 3-vertex ones in bitmask/labelling order
    table = unique_cells()
    two = np.flatnonzero(table.num_vertices == 2)
    assert len(two) == 1 and table.ops(int(two[0])) == ["input", "output"]
    three = np.flatnonzero(table.num_vertices == 3)
    # 3 vertices (bits: 0->1, 0->2, 1->2): only 0b101 and 0b111 are full DAGs, 3 labellings each
    assert sorted(int(m) for m in table.bitmasks[three]) == [0b101] * 3 + [0b111] * 3


@pytest.mark.parametrize("num_vertices", [4, 5, 6])
def test_enumeration_matches_the_shipped_table(num_vertices):
    masks, hashes = labelled_hashes(num_vertices, workers=2)
    table = labelled_table()
    selected = table.graph_vertices == num_vertices
    assert np.array_equal(table.graph_bitmasks[selected], masks)
    offsets = table.labelled_offsets[selected]
    rows = table.row_of_labelled[offsets[0] : offsets[0] + len(hashes)]
    assert np.array_equal(unique_cells().hashes[rows], hashes.astype("U32"))


def test_enumeration_hashes_equal_the_reference_algorithm(rng):
    masks, hashes = labelled_hashes(6, workers=1)
    matrices, labels = masks_to_matrices(masks, 6), labellings(6)
    for index in rng.choice(len(hashes), size=200, replace=False):
        graph, labelling = divmod(int(index), len(labels))
        assert fingerprint(matrices[graph].astype(int).tolist(), labels[labelling].tolist()) == hashes[index].decode()


def test_corrupted_package_data_is_a_clear_error(tmp_path):
    from nasarena.io.packaged import data_dir

    for name in (LOOKUP_FILE, "manifest.json"):
        (tmp_path / name).write_bytes((data_dir() / name).read_bytes())
    content = bytearray((tmp_path / LOOKUP_FILE).read_bytes())
    content[1000] ^= 0xFF
    (tmp_path / LOOKUP_FILE).write_bytes(bytes(content))
    with pytest.raises(DataIntegrityError, match="corrupted: sha256"):
        load_arrays(LOOKUP_FILE, tmp_path)
    assert LOOKUP_FILE in read_manifest(tmp_path)
