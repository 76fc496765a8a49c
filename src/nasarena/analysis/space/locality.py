"""Fig. 6 of the NB101 paper: locality of the landscape in the encoded space.

Distances are edit distances on the 7-vertex encoding: one edge flip or one op change is one
step. The random walk and the fitness-distance samples are seeded; the isomorphism counts, the
top graphs' points and the distance-to-top volumes are exact (the whole 510M-point space is
swept with a separable distance transform: the edit distance is a sum over the 21 edge bits
and the 5 op positions, so one min-pass per coordinate gives the distance of every point to
the nearest top point).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .encoded import INTERIOR, NUM_EDGE_BITS, NUM_LABELLINGS, NUM_MATRICES, EncodedSpace, popcount

MOVES = NUM_EDGE_BITS + INTERIOR  # 26 coordinates: flip an edge or change an op


def edit_distance(matrices_a, labellings_a, matrices_b, labellings_b) -> np.ndarray:
    """Edit distance between encoded points (broadcasting): edge flips plus changed ops."""
    edges = popcount(np.bitwise_xor(np.asarray(matrices_a, dtype=np.int64), np.asarray(matrices_b, dtype=np.int64)))
    a = np.asarray(labellings_a, dtype=np.int64)
    b = np.asarray(labellings_b, dtype=np.int64)
    ops = np.zeros(np.broadcast(a, b).shape, dtype=np.int64)
    for power in 3 ** np.arange(INTERIOR):
        ops += (a // power) % 3 != (b // power) % 3
    return edges + ops


def _move(matrices: np.ndarray, labellings: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One random change of each point: a uniformly chosen coordinate, an op to one of the other two."""
    coordinate = rng.integers(0, MOVES, size=len(matrices))
    flip = coordinate < NUM_EDGE_BITS
    new_matrices = np.where(flip, matrices ^ (np.int64(1) << np.minimum(coordinate, NUM_EDGE_BITS - 1)), matrices)
    power = 3 ** (INTERIOR - 1 - np.maximum(coordinate - NUM_EDGE_BITS, 0))
    digit = (labellings // power) % 3
    new_digit = (digit + rng.integers(1, 3, size=len(matrices))) % 3
    new_labellings = np.where(flip, labellings, labellings + (new_digit - digit) * power)
    return new_matrices, new_labellings


def random_valid_points(space: EncodedSpace, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    valid = np.flatnonzero(space.valid)
    return rng.choice(valid, size=count), rng.integers(0, NUM_LABELLINGS, size=count)


def random_walk(space: EncodedSpace, chains: int, steps: int, rng: np.random.Generator) -> np.ndarray:
    """(chains, steps) unique-cell rows visited by random walks of valid cells (a change that
    leaves the space is redrawn)."""
    matrices, labellings = random_valid_points(space, chains, rng)
    visited = np.empty((chains, steps), dtype=np.int64)
    for t in range(steps):
        visited[:, t] = space.rows(matrices, labellings)
        pending = np.arange(chains)
        while len(pending):
            m, o = _move(matrices[pending], labellings[pending], rng)
            ok = space.valid[m]
            matrices[pending[ok]], labellings[pending[ok]] = m[ok], o[ok]
            pending = pending[~ok]
    return visited


def autocorrelation(walk_values: np.ndarray, max_shift: int) -> tuple[np.ndarray, np.ndarray]:
    """(shift, correlation of values ``shift`` steps apart), pooled over chains, NaN values skipped."""
    shifts = np.arange(1, max_shift + 1)
    correlations = []
    for s in shifts:
        a, b = walk_values[:, :-s].ravel(), walk_values[:, s:].ravel()
        both = np.isfinite(a) & np.isfinite(b)
        correlations.append(np.corrcoef(a[both], b[both])[0, 1] if both.sum() > 2 else np.nan)
    return shifts, np.array(correlations)


@dataclass(frozen=True)
class FitnessDistance:
    distance: np.ndarray  # per sampled valid point: distance to the nearest point of the best cell
    accuracy: np.ndarray

    def fdc(self, max_distance: int) -> tuple[np.ndarray, np.ndarray]:
        """(d, correlation of accuracy and distance among the samples within distance d)."""
        ds = np.arange(2, max_distance + 1)
        values = []
        for d in ds:
            near = self.distance <= d
            ok = near.sum() > 2 and np.ptp(self.distance[near]) > 0
            values.append(np.corrcoef(self.accuracy[near], self.distance[near])[0, 1] if ok else np.nan)
        return ds, np.array(values)


def fitness_distance(space: EncodedSpace, accuracy: np.ndarray, best_points: tuple[np.ndarray, np.ndarray],
                     samples: int, max_steps: int, rng: np.random.Generator) -> FitnessDistance:
    """Points reached by seeded random walks (1..max_steps changes, invalid points allowed on the way)
    from the best cell's encodings, with their exact distance to the nearest encoding of the best."""
    best_m, best_o = best_points
    start = rng.integers(0, len(best_m), size=samples)
    matrices, labellings = best_m[start].copy(), best_o[start].copy()
    lengths = rng.integers(1, max_steps + 1, size=samples)
    for step in range(max_steps):
        moving = lengths > step
        matrices[moving], labellings[moving] = _move(matrices[moving], labellings[moving], rng)
    rows = space.rows(matrices, labellings)
    keep = rows >= 0
    keep[keep] = np.isfinite(accuracy[rows[keep]])
    distance = np.full(samples, np.iinfo(np.int64).max)
    for chunk in np.array_split(np.arange(len(best_m)), max(1, len(best_m) // 64)):
        d = edit_distance(matrices[keep, None], labellings[keep, None], best_m[None, chunk], best_o[None, chunk])
        distance[keep] = np.minimum(distance[keep], d.min(axis=1))
    return FitnessDistance(distance[keep], accuracy[rows[keep]])


_BYTE_SWAPS = (  # bits 0-2 of the matrix number index the bytes of one 64-bit word: swap byte groups
    (8, np.uint64(0x00FF00FF00FF00FF)),
    (16, np.uint64(0x0000FFFF0000FFFF)),
    (32, np.uint64(0x00000000FFFFFFFF)),
)
_ONES = np.uint64(0x0101010101010101)  # +1 in every byte of a word (distances stay far below 255)


def hamming_transform(distance: np.ndarray) -> None:
    """In place: ``distance[o, m]`` (uint8, 0 at the seed points, a large value below 200 elsewhere)
    becomes the edit distance to the nearest seed. Axis 0 is a base-3 number of ``k`` op digits
    (3^k), axis 1 a matrix number of ``b >= 3`` edge bits (2^b). The distance is a sum over
    coordinates, so one pass per coordinate is exact. Every pass writes into two preallocated
    scratch buffers (fresh 500 MB temporaries cost more than the arithmetic) and works on
    whole 64-bit words: the lowest three bits by swapping bytes inside each word."""
    labellings, matrices = distance.shape
    bits = matrices.bit_length() - 1
    digits = round(np.log(labellings) / np.log(3))
    if 3**digits != labellings or 1 << bits != matrices or bits < 3 or not distance.flags.c_contiguous:
        raise ValueError(f"expected a contiguous (3^k, 2^b) array with b >= 3, got {distance.shape}")
    flat = distance.reshape(-1)
    words = flat.view(np.uint64)
    first, second = np.empty_like(words), np.empty_like(words)
    for shift, mask in _BYTE_SWAPS:
        np.bitwise_and(words, mask, out=first)
        np.left_shift(first, np.uint64(shift), out=first)
        np.right_shift(words, np.uint64(shift), out=second)
        np.bitwise_and(second, mask, out=second)
        np.bitwise_or(first, second, out=first)
        np.add(first, _ONES, out=first)
        np.minimum(flat, first.view(np.uint8), out=flat)
    for bit in range(3, bits):  # pairs of word blocks: low = min(low, high + 1), high = min(high, low + 1)
        pairs = words.reshape(-1, 2, 1 << (bit - 3))
        low, high = pairs[:, 0], pairs[:, 1]
        low_plus = first[: words.size // 2].reshape(low.shape)
        high_plus = second[: words.size // 2].reshape(high.shape)
        np.add(low, _ONES, out=low_plus)
        np.add(high, _ONES, out=high_plus)
        np.minimum(low.view(np.uint8), high_plus.view(np.uint8), out=low.view(np.uint8))
        np.minimum(high.view(np.uint8), low_plus.view(np.uint8), out=high.view(np.uint8))
    bytes_first, bytes_second = first.view(np.uint8), second.view(np.uint8)
    for position in range(digits):  # digit ``position`` (most significant first) has weight 3^(k-1-position)
        view = flat.reshape(3**position, 3, -1)
        plus = [part.reshape(view[:, 0].shape) for part in
                (bytes_first[: flat.size // 3], bytes_second[: flat.size // 3],
                 bytes_first[flat.size // 3: 2 * (flat.size // 3)])]
        for k in range(3):
            np.add(view[:, k], np.uint8(1), out=plus[k])
        # each third takes the smaller of its own value and the other two's plus one
        np.minimum(plus[1], plus[2], out=bytes_second[2 * (flat.size // 3):].reshape(view[:, 0].shape))
        np.minimum(view[:, 0], bytes_second[2 * (flat.size // 3):].reshape(view[:, 0].shape), out=view[:, 0])
        np.minimum(plus[0], plus[2], out=plus[2])
        np.minimum(view[:, 1], plus[2], out=view[:, 1])
        np.minimum(plus[0], plus[1], out=plus[0])
        np.minimum(view[:, 2], plus[0], out=view[:, 2])


def distance_to_points(space: EncodedSpace, points: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Exact counts of encoded points at each distance from the nearest given point:
    (over all 510M points, over the valid ones). A 510 MB uint8 array, one pass per coordinate."""
    distance = np.full((NUM_LABELLINGS, NUM_MATRICES), 60, dtype=np.uint8)
    distance[points[1], points[0]] = 0
    hamming_transform(distance)
    everywhere = np.zeros(64, dtype=np.int64)
    valid = np.zeros(64, dtype=np.int64)
    for row in distance:
        everywhere += np.bincount(row, minlength=64)
        valid += np.bincount(row[space.valid], minlength=64)
    return everywhere, valid
