"""The fast paths of the cheap optimizers (issue 18) give exactly what the original code gives.

Each reference below is the code the fast path replaced (building a ``Cell`` per attempt), kept
here as the specification: same cells, same generator state afterwards, same trajectories.
"""

from __future__ import annotations

import pickle
import time
from collections import deque

import numpy as np
import pytest

import nasarena
from nasarena.optimizers.base import Observation, Trial
from nasarena.optimizers.evolution import NonRegularizedEvolution, RegularizedEvolution
from nasarena.optimizers.random_search import RandomSearch
from nasarena.runner import Budget, RunSettings, run
from nasarena.spaces.nb101 import Cell, operations, raw, unique_cells
from nasarena.spaces.nb101.cell import INPUT, OPS, OUTPUT


def original_sample_raw(rng):
    while True:
        matrix = np.triu(rng.integers(0, 2, size=(7, 7)), 1).tolist()
        interior = rng.integers(0, len(OPS), size=5).tolist()
        cell = Cell.from_checked(tuple(map(tuple, matrix)), (INPUT, *(OPS[i] for i in interior), OUTPUT))
        if cell.is_valid:
            return cell


def original_mutate_one_edit(cell, rng):
    base_matrix, base_ops = operations._padded_original(cell, rng)
    pairs = [(x, y) for x in range(6) for y in range(x + 1, 7)]
    attempts = 0
    while True:
        attempts += 1
        position = int(rng.random() * (len(pairs) + 5))
        matrix, ops = [row[:] for row in base_matrix], list(base_ops)
        if position < len(pairs):
            x, y = pairs[position]
            matrix[x][y] = 1 - matrix[x][y]
        else:
            vertex = position - len(pairs) + 1
            others = [op for op in OPS if op != ops[vertex]]
            ops[vertex] = others[int(rng.random() * len(others))]
        child = Cell.from_checked(tuple(map(tuple, matrix)), tuple(ops))
        if child.is_valid and (child.hash != cell.hash or attempts > operations.SAME_ARCHITECTURE_ATTEMPTS):
            return child


def original_neighbours(cell):
    matrix, ops = cell.original_matrix, cell.original_ops
    n = len(ops)
    candidates = [Cell.from_checked(matrix, ops[:v] + (op,) + ops[v + 1 :])
                  for v in range(1, n - 1) for op in OPS if op != ops[v]]
    for source in range(n - 1):
        for target in range(source + 1, n):
            flipped = [list(row) for row in matrix]
            flipped[source][target] = 1 - flipped[source][target]
            candidates.append(Cell.from_checked(tuple(map(tuple, flipped)), ops))
    seen, result = {cell.hash}, []
    for candidate in candidates:
        if candidate.is_valid and candidate.hash not in seen:
            seen.add(candidate.hash)
            result.append(candidate)
    return result


def same_cell(a: Cell, b: Cell) -> bool:
    """Every attribute equal: row, validity, and the matrices and ops (built on first access by
    a cell of the raw tables)."""
    return all(getattr(a, name) == getattr(b, name)
               for name in ("row", "reason", "original_matrix", "original_ops", "matrix", "ops"))


def generator_state(rng):
    state = rng.bit_generator.state  # a spent half-output's value is irrelevant: compare it only when held
    inner = {key: value.tolist() if isinstance(value, np.ndarray) else value for key, value in state.items()
             if key not in ("has_uint32", "uinteger")}
    return repr(inner), state["has_uint32"], state["uinteger"] if state["has_uint32"] else None


def test_raw_tables_give_the_rows_and_cells_of_pruning_and_look_up():
    tables = raw.raw_tables()
    rng = np.random.default_rng(18)
    masks, opcodes = rng.integers(0, 1 << 21, 4000), rng.integers(0, raw.NUM_OP_CODES, 4000)
    rows = tables.rows(masks, opcodes)
    for mask, opcode, row in zip(masks.tolist(), opcodes.tolist(), rows.tolist()):
        matrix = tuple(tuple(int((x, y) in raw.EDGE_PAIRS and mask >> raw.EDGE_PAIRS.index((x, y)) & 1)
                             for y in range(7)) for x in range(7))
        ops = (INPUT, *(OPS[opcode // w % 3] for w in raw.OP_WEIGHTS), OUTPUT)
        cell = Cell.from_checked(matrix, ops)
        assert row == (cell.row if cell.is_valid else -1) == tables.row(mask, opcode)
        if cell.is_valid:
            assert same_cell(raw.cell_of(tables, mask, opcode), cell)
            assert raw.encode(matrix, ops) == (mask, opcode)
    assert 0.5 < (rows >= 0).mean() < 0.9  # most raw encodings are valid (~73%)


@pytest.mark.parametrize("odd_start", [False, True])
def test_sample_raw_gives_the_original_samplers_cells_and_state(odd_start):
    for seed in range(60):
        fast, original = np.random.default_rng(seed), np.random.default_rng(seed)
        if odd_start:  # one 32-bit draw before: the generator holds half an output
            fast.integers(0, 3), original.integers(0, 3)
        for _ in range(4):
            assert same_cell(operations.sample_raw(fast), original_sample_raw(original))
            assert generator_state(fast) == generator_state(original)
        assert fast.random() == original.random()


def test_an_op_word_of_zero_is_redrawn_as_numpy_does():
    # numpy's integers(0, 3) rejects only the word 0 and takes the next one
    rng, copy = np.random.default_rng(3), np.random.default_rng(3)
    words = [0, 2**31, 5, 0, 0]
    following = copy.integers(0, 2**32, size=3, dtype=np.uint32).tolist()
    labels = [w * 3 >> 32 for w in [2**31, 5, *following]]
    expected = sum(label * weight for label, weight in zip(labels, raw.OP_WEIGHTS))
    assert operations._op_code_with_rejections(words, rng) == expected
    assert generator_state(rng) == generator_state(copy)


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox])
@pytest.mark.parametrize("odd_start", [False, True])
def test_sample_raw_many_gives_the_cells_and_state_of_one_at_a_time(bit_generator, odd_start):
    for seed in range(8):
        batched, single = np.random.Generator(bit_generator(seed)), np.random.Generator(bit_generator(seed))
        if odd_start:  # half an output held: the batch goes one at a time until it is spent
            batched.integers(0, 3), single.integers(0, 3)
        for count in (1, 7, 150):
            many = operations.sample_raw_many(batched, count)
            assert all(same_cell(a, operations.sample_raw(single)) for a in many)
            assert generator_state(batched) == generator_state(single)
    assert batched.random() == single.random()


def test_a_batch_of_attempts_ends_at_an_op_word_of_zero():
    words = np.random.default_rng(2).integers(1, 2**32, size=(6, 54), dtype=np.uint64).astype(np.uint32)
    words[4, 51] = 0
    masks, opcodes = operations.decode_attempts(words)
    assert len(masks) == len(opcodes) == 4
    for attempt in range(4):
        upper = [words[attempt, x * 7 + y] >> 31 for x, y in raw.EDGE_PAIRS]
        assert masks[attempt] == sum(int(bit) << i for i, bit in enumerate(upper))
        labels = [int(word) * 3 >> 32 for word in words[attempt, 49:]]
        assert opcodes[attempt] == sum(label * weight for label, weight in zip(labels, raw.OP_WEIGHTS))


def test_cells_from_the_raw_tables_build_their_encoding_on_first_access():
    cell = operations.sample_raw(np.random.default_rng(9))
    assert "original_matrix" not in vars(cell)
    assert same_cell(pickle.loads(pickle.dumps(cell)), cell)  # pickled before its encoding was built
    assert "original_matrix" in vars(cell)
    cell = operations.sample_raw(np.random.default_rng(9))
    rebuilt = Cell.from_checked(cell.original_matrix, cell.original_ops)
    assert same_cell(cell, rebuilt) and cell == rebuilt and hash(cell) == hash(rebuilt)
    with pytest.raises(AttributeError):
        cell.no_such_attribute  # noqa: B018


def test_mutate_one_edit_gives_the_original_child_and_state():
    rng = np.random.default_rng(5)
    parents = [operations.sample_raw(rng) for _ in range(150)]
    parents += [unique_cells().cell(row) for row in range(0, 423_624, 4_001)]  # smaller cells: widened first
    for index, parent in enumerate(parents):
        fast, original = np.random.default_rng(index), np.random.default_rng(index)
        for _ in range(3):
            assert same_cell(operations.mutate_one_edit(parent, fast), original_mutate_one_edit(parent, original))
            assert generator_state(fast) == generator_state(original)


def test_neighbours_are_the_original_ones_in_the_original_order():
    rng = np.random.default_rng(11)
    for _ in range(60):
        cell = operations.sample_raw(rng)
        fast, original = operations.neighbours(cell), original_neighbours(cell)
        assert len(fast) == len(original) > 0
        assert all(same_cell(a, b) for a, b in zip(fast, original))


class _OriginalEvolution:
    """The evolution's tournament and removal as they were (tuples in one deque)."""

    @property
    def members(self) -> deque:
        return self.__dict__.setdefault("_members", deque())

    def _ask(self, number):
        if number < self.population_size or not self.members:
            return Trial(self.space.sample(self.rng))
        picks = (self.rng.random(self.tournament_size) * len(self.members)).astype(np.int64).tolist()
        parent = max((self.members[i] for i in picks), key=lambda member: member[1])[0]
        return Trial(self.space.mutate_one_edit(parent, self.rng))

    def _tell(self, trial, observation):
        self.members.append((trial.arch, observation.valid_accuracy))
        if len(self.members) > self.population_size:
            if self.regularized:
                self.members.popleft()
            else:
                del self.members[min(range(len(self.members)), key=lambda i: self.members[i][1])]


class OriginalRE(_OriginalEvolution, RegularizedEvolution):
    pass


class OriginalNRE(_OriginalEvolution, NonRegularizedEvolution):
    pass


@pytest.mark.parametrize("fast, original", [(RegularizedEvolution, OriginalRE),
                                            (NonRegularizedEvolution, OriginalNRE)])
@pytest.mark.parametrize("workers", [1, 3])
def test_evolution_trajectory_is_the_original_one(fast, original, workers):
    # the draws served from blocks (nasarena.uniforms) are the generator's own, and NRE's heap
    # removes the member the scan removed, also when results arrive out of ask order (3 workers)
    lite = nasarena.benchmark("nb101-lite")
    budget = Budget(evaluations=400)
    for seed in (0, 1):
        settings = dict(population_size=30, tournament_size=5)
        run_settings = RunSettings(n_workers=workers)
        a = run(lite, fast(lite.space, seed=seed, **settings), budget, seed=seed, settings=run_settings)
        b = run(lite, original(lite.space, seed=seed, **settings), budget, seed=seed, settings=run_settings)
        assert a.arch_id.tolist() == b.arch_id.tolist()
        assert a.sim_time.tolist() == b.sim_time.tolist()


def test_nre_removes_the_first_of_equally_bad_members():
    # accuracies with many ties (and NaNs), told in a shuffled order: the population after each
    # tell is the one the scan rule (accuracies.index(min(accuracies))) keeps
    lite = nasarena.benchmark("nb101-lite")
    nre = NonRegularizedEvolution(lite.space, seed=0, population_size=8, tournament_size=3)
    trials = [nre.ask() for _ in range(60)]
    rng = np.random.default_rng(3)
    reference: list[tuple[object, float]] = []
    for index in rng.permutation(len(trials)):
        accuracy = [0.0, 0.25, 0.5, 0.75, float("nan")][int(rng.integers(0, 5))]  # ties, and min()'s NaN rules
        nre.tell(trials[index], Observation(accuracy, 1.0))
        reference.append((trials[index].arch, accuracy))
        if len(reference) > 8:
            accuracies = [a for _, a in reference]
            del reference[accuracies.index(min(accuracies))]
        assert all(kept is arch for kept, (arch, _) in zip(nre.population, reference, strict=True))
        assert nre.accuracies == [a for _, a in reference]


def test_random_search_trajectory_is_the_original_samplers():
    lite = nasarena.benchmark("nb101-lite")
    frame = run(lite, RandomSearch(lite.space, seed=4), Budget(evaluations=100), seed=4)
    rng = np.random.default_rng(4)
    assert frame.arch_id.tolist() == [original_sample_raw(rng).hash for _ in range(100)]


class _Spinner(RandomSearch):
    """Random search that burns a known amount of CPU in every ask."""

    name = "spinner"
    spent = 0.0

    def _ask(self, number):
        start = time.process_time()
        while time.process_time() - start < 0.0005:
            pass
        type(self).spent += time.process_time() - start
        return super()._ask(number)


@pytest.mark.parametrize("charged", [False, True])
def test_optimizer_cpu_time_measures_what_the_optimizer_spends(charged):
    lite = nasarena.benchmark("nb101-lite")
    _Spinner.spent = 0.0
    frame = run(lite, _Spinner(lite.space, seed=0), Budget(evaluations=200), seed=0,
                settings=RunSettings(count_optimizer_time=charged))
    measured = frame.optimizer_cpu_time.to_numpy()
    assert np.all(np.diff(measured) >= 0)
    # the wall-clock estimate shares the process's CPU by wall time: loose on a shared machine
    assert 0.6 * _Spinner.spent < measured[-1] < 1.6 * _Spinner.spent
    if charged:  # exact (the spins and the sampling around them), and on the simulated clock
        assert _Spinner.spent < measured[-1] < 1.4 * _Spinner.spent
        assert frame.sim_time.iloc[-1] > frame.sim_time.iloc[-1] - measured[-1] > 0


def test_result_from_fields_is_the_dataclass_result():
    from dataclasses import fields

    from nasarena.benchmarks.result import Result

    values = (0.91, 0.9, 1234.5, 2_000_000, 108, 0.99, 2, True, frozenset({"cost_seconds"}))
    fast, plain = Result.from_fields(*values), Result(*values)
    assert fast == plain and hash(fast) == hash(plain)
    assert vars(fast) == {f.name: getattr(plain, f.name) for f in fields(Result)}


def test_trial_and_observation_from_fields_are_the_dataclass_objects():
    cell = nasarena.benchmark("nb101-lite").space.sample(np.random.default_rng(0))
    for fast, plain in [(Trial.from_fields(cell, None, 7), Trial(cell, number=7)),
                        (Observation.from_fields(0.93, 1500.0, True), Observation(0.93, 1500.0))]:
        assert fast == plain and hash(fast) == hash(plain) and vars(fast) == vars(plain)


def test_uniform_stream_serves_the_generators_doubles_in_order():
    from nasarena.uniforms import BLOCK, UniformStream

    stream, reference = UniformStream(np.random.default_rng(5)), np.random.default_rng(5)
    choices, consumed = np.random.default_rng(1), 0
    while consumed < 3 * BLOCK + 17:  # across block boundaries, scalars and index batches mixed
        if choices.random() < 0.3:
            count, size = int(choices.integers(0, 40)), int(choices.integers(1, 200))
            expected = [int(u * size) for u in reference.random(count).tolist()]
            assert stream.indices(count, size) == expected
            consumed += count
        else:
            assert stream.random() == reference.random()
            consumed += 1
    # any other draw comes from the generator itself, after the blocks of doubles drawn so far
    after_blocks = np.random.default_rng(5)
    after_blocks.random(-(-consumed // BLOCK) * BLOCK)
    assert stream.integers(0, 10**9, size=3).tolist() == after_blocks.integers(0, 10**9, size=3).tolist()


def test_uniform_stream_arrays_come_from_the_same_doubles():
    from nasarena.uniforms import BLOCK, UniformStream

    stream, reference = UniformStream(np.random.default_rng(8)), np.random.default_rng(8)
    for size in [None, (3, 4), 7, None, (BLOCK,), (2, 1, 5)]:
        expected, got = reference.random(size), stream.random(size)
        assert np.array_equal(got, expected) and np.shape(got) == np.shape(expected)


def test_trajectory_frame_is_the_frame_pandas_builds_from_the_rows():
    import pandas as pd

    from nasarena.runner.protocol import TRAJECTORY_COLUMNS, _trajectory_frame

    run_columns = ("nb101-lite", "re", "0123456789", 2**62)
    plain = [(0, 10.5, 120, "a", 108, 0.91, 0.9, "a", 0.91, 0.02), (1, 99.0, 300, "b", 108, 0.93, 0.92, "b", 0.93, 0.0)]
    odd = [plain[0], (1, 99.0, 300, "b", None, float("nan"), np.float32(0.5), "a", 0.91, 0.02)]  # None: pandas infers
    for rows in (plain, odd, []):
        expected = pd.DataFrame(rows, columns=TRAJECTORY_COLUMNS[4:])
        for position, (name, value) in enumerate(zip(TRAJECTORY_COLUMNS[:4], run_columns)):
            expected.insert(position, name, value)
        pd.testing.assert_frame_equal(_trajectory_frame(rows, run_columns), expected)
