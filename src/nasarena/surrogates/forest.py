"""XGBoost ensembles as flat arrays, to predict one architecture without XGBoost's per-call cost.

One ``inplace_predict`` call costs ~200 us whatever the model (argument marshalling and
predictor set-up), so a 5-member ensemble needs ~1 ms for a single architecture, the
benchmark's hot path. Here the trees of every member are laid out as flat node arrays and
one row walks all of them at once, a depth level per numpy step (~0.1 ms for 5 x 200 trees).

The result is XGBoost's own, bit for bit: leaves are chosen with XGBoost's test
(``x < split_condition`` goes left; float32 on both sides) and each member's leaf values are
summed in float32 in tree order starting from its base score, as XGBoost's CPU predictor
accumulates. Rows with NaN (XGBoost's missing values) are not handled here; the caller uses
XGBoost for them (the encodings nasarena builds never contain NaN).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TreeArrays:
    """All trees of several boosters: node arrays indexed by a global node number.

    A leaf points to itself (both children) with threshold +inf, so walking ``depth`` levels
    from the roots ends on every tree's leaf whatever its own depth.
    """

    feature: np.ndarray  # int64
    threshold: np.ndarray  # float32
    left: np.ndarray  # int64
    right: np.ndarray  # int64
    leaf_value: np.ndarray  # float32, 0 on inner nodes
    roots: np.ndarray  # int64, one per tree, members' trees in order
    member_trees: tuple[int, ...]  # trees per member
    base_scores: np.ndarray  # float32, one per member
    depth: int

    def predict_row(self, x: np.ndarray) -> np.ndarray:
        """Per member, the prediction for one float32 row (as XGBoost computes it)."""
        node = self.roots
        for _ in range(self.depth):
            node = np.where(x[self.feature[node]] < self.threshold[node], self.left[node], self.right[node])
        values = self.leaf_value[node]
        out = np.empty(len(self.member_trees), dtype=np.float32)
        start = 0
        for m, count in enumerate(self.member_trees):  # float32, sequential: XGBoost's summation order
            out[m] = np.cumsum(np.concatenate(([self.base_scores[m]], values[start:start + count])),
                               dtype=np.float32)[-1]
            start += count
        return out


def tree_arrays(boosters) -> TreeArrays:
    """Flatten XGBoost boosters (regression with identity link, numerical splits only)."""
    parts: dict[str, list] = {k: [] for k in ("feature", "threshold", "left", "right", "leaf_value", "roots")}
    member_trees, base_scores, depth, offset = [], [], 0, 0
    for booster in boosters:
        model = json.loads(booster.save_raw("json"))["learner"]
        if model["objective"]["name"] != "reg:squarederror":
            raise ValueError(f"only reg:squarederror boosters can be flattened, got {model['objective']['name']}")
        base_scores.append(float(model["learner_model_param"]["base_score"].strip("[]")))
        trees = model["gradient_booster"]["model"]["trees"]
        member_trees.append(len(trees))
        for tree in trees:
            if any(tree["split_type"]):
                raise ValueError("categorical splits cannot be flattened")
            left = np.asarray(tree["left_children"], dtype=np.int64)
            right = np.asarray(tree["right_children"], dtype=np.int64)
            conditions = np.asarray(tree["split_conditions"], dtype=np.float32)
            leaf = left == -1
            nodes = np.arange(len(left))
            parts["feature"].append(np.where(leaf, 0, tree["split_indices"]))
            parts["threshold"].append(np.where(leaf, np.float32(np.inf), conditions))
            parts["left"].append(np.where(leaf, nodes, left) + offset)
            parts["right"].append(np.where(leaf, nodes, right) + offset)
            parts["leaf_value"].append(np.where(leaf, conditions, np.float32(0)))
            parts["roots"].append([offset])
            depth = max(depth, _depth(left, right))
            offset += len(left)
    return TreeArrays(
        feature=np.concatenate(parts["feature"]).astype(np.int64),
        threshold=np.concatenate(parts["threshold"]).astype(np.float32),
        left=np.concatenate(parts["left"]), right=np.concatenate(parts["right"]),
        leaf_value=np.concatenate(parts["leaf_value"]).astype(np.float32),
        roots=np.concatenate(parts["roots"]).astype(np.int64), member_trees=tuple(member_trees),
        base_scores=np.array(base_scores, dtype=np.float32), depth=depth)


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    """Edges on the longest root-to-leaf path."""
    depth, level = 0, [0]
    while True:
        children = [c for n in level for c in (left[n], right[n]) if c != -1]
        if not children:
            return depth
        depth += 1
        level = children
