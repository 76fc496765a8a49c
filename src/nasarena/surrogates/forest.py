"""Tree ensembles predicted without their library's per-call and per-tree costs.

XGBoost, one row: one ``inplace_predict`` call costs ~200 us whatever the model (argument
marshalling and predictor set-up), so a 5-member ensemble needs ~1 ms for a single
architecture, the benchmark's hot path. :class:`TreeArrays` lays the trees of every member out
as flat node arrays and walks one row through all of them at once, a depth level per numpy
step (~0.1 ms for 5 x 200 trees). The result is XGBoost's own, bit for bit: leaves are chosen
with XGBoost's test (``x < split_condition`` goes left; float32 on both sides) and each
member's leaf values are summed in float32 in tree order starting from its base score, as
XGBoost's CPU predictor accumulates. Rows with NaN (XGBoost's missing values) are not handled
there; the caller uses XGBoost for them (the encodings nasarena builds never contain NaN).

LightGBM, many rows: :class:`LightGBMForest` walks LightGBM's trees with XGBoost's faster
predictor and sums their float64 leaf values as LightGBM does (bit-identical; see the class).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

#: XGBoost objectives whose prediction is the base score plus the trees' sum (identity link).
XGBOOST_IDENTITY_OBJECTIVES = frozenset({"reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror"})

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
    """Flatten XGBoost boosters (regression with an identity link, numerical splits only)."""
    parts: dict[str, list] = {k: [] for k in ("feature", "threshold", "left", "right", "leaf_value", "roots")}
    member_trees, base_scores, depth, offset = [], [], 0, 0
    for booster in boosters:
        model = json.loads(booster.save_raw("json"))["learner"]
        if model["objective"]["name"] not in XGBOOST_IDENTITY_OBJECTIVES:
            raise ValueError(f"only boosters with an identity link ({', '.join(sorted(XGBOOST_IDENTITY_OBJECTIVES))}) "
                             f"can be flattened, got {model['objective']['name']}")
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


#: Rows walked, gathered and summed at a time: keeps the (rows, trees) blocks in cache (XGBoost's
#: output for 100,000 rows of 500 trees would be 200 MB, copied once more into numpy).
LEAF_CHUNK = 4096
#: LightGBM objectives whose prediction is the raw sum of the trees (identity link).
IDENTITY_OBJECTIVES = frozenset({"regression", "regression_l1", "huber", "fair", "quantile", "mape"})


class LightGBMForest:
    """LightGBM boosters predicted through XGBoost's tree walker, summed in float64 as LightGBM does.

    On one thread LightGBM's ``predict`` spends ~40 ns per tree and row on nb101-lgb's trees (63
    leaves, mean depth 12), XGBoost's ``inplace_predict`` about half of that on the same trees
    (``bench/bench_lightgbm_forest.py``). XGBoost cannot hold LightGBM's float64 leaf values nor sum them in float64, so the
    converted model is made to return *leaf numbers* instead: every tree is its own output
    target and each leaf's value is its node number (an integer, exact in float32). The leaf
    values are then gathered from a float64 table and summed in tree order, LightGBM's own
    accumulation (``output += tree.Predict(row)`` from 0), so the result is LightGBM's bit for bit.

    Splits are translated exactly for float32 rows: LightGBM sends a row left when
    ``double(x) <= threshold``; for a float32 ``x`` that is ``x < c`` with ``c`` the next float32
    above the largest float32 <= threshold, XGBoost's test in float32. NaN follows LightGBM: to
    the default side where the node's missing type is NaN, else as 0.0 would. Refused (ValueError):
    categorical splits, zero-as-missing, linear trees, averaged (random forest) output, several
    trees per iteration, objectives with a non-identity link and thresholds beyond float32 range.
    Rows of another dtype must go through LightGBM itself (float64 values would be rounded here).
    """

    def __init__(self, boosters, iterations=None):
        import xgboost

        iterations = list(iterations) if iterations is not None else [None] * len(boosters)
        trees, values, member_trees, num_feature = [], [], [], None
        for booster, iteration in zip(boosters, iterations):
            model = booster.dump_model(num_iteration=iteration)
            _check_lightgbm_model(model)
            num_feature = model["max_feature_idx"] + 1
            member_trees.append(len(model["tree_info"]))
            for info in model["tree_info"]:
                nodes = _breadth_first(info["tree_structure"])
                trees.append(_xgboost_tree(nodes, len(trees), num_feature))
                values.append([node.get("leaf_value", 0.0) for node in nodes])
        count = len(trees)
        document = {"version": _xgboost_version(xgboost.__version__), "learner": {
            "attributes": {}, "feature_names": [], "feature_types": [],
            "gradient_booster": {"name": "gbtree", "model": {
                "gbtree_model_param": {"num_parallel_tree": "1", "num_trees": str(count)},
                "iteration_indptr": [0, count], "tree_info": list(range(count)), "trees": trees}},
            "learner_model_param": {"base_score": "[" + ",".join(["0"] * count) + "]", "boost_from_average": "0",
                                    "num_class": "0", "num_feature": str(num_feature), "num_target": str(count)},
            "objective": {"name": "reg:squarederror", "reg_loss_param": {"scale_pos_weight": "1"}}}}
        self.walker = xgboost.Booster()
        self.walker.load_model(bytearray(json.dumps(document).encode()))
        self.walker.set_param({"nthread": 1})
        self.leaf_values = np.concatenate([np.asarray(v, dtype=np.float64) for v in values])
        self.tree_offsets = np.cumsum([0] + [len(v) for v in values[:-1]]).astype(np.int32)
        self.member_bounds = np.cumsum([0, *member_trees])
        self.num_features = num_feature

    def predict(self, x: np.ndarray) -> np.ndarray:
        """(members, rows) float64 predictions of float32 rows, equal to each booster's ``predict``."""
        if x.dtype != np.float32 or x.ndim != 2:
            raise ValueError(f"LightGBMForest predicts 2-D float32 rows exactly, got {x.ndim}-D {x.dtype}")
        if x.shape[1] != self.num_features:
            raise ValueError(f"rows must have {self.num_features} features (the boosters'), got {x.shape[1]}")
        out = np.zeros((len(self.member_bounds) - 1, len(x)))
        for start in range(0, len(x), LEAF_CHUNK):
            node = self.walker.inplace_predict(x[start:start + LEAF_CHUNK]).reshape(-1, len(self.tree_offsets))
            node = node.T.astype(np.int32)  # (trees, rows): one contiguous row of leaves per tree
            node += self.tree_offsets[:, None]
            value = self.leaf_values.take(node)
            for m, total in enumerate(out[:, start:start + LEAF_CHUNK]):
                for tree in range(self.member_bounds[m], self.member_bounds[m + 1]):
                    total += value[tree]  # from 0, one tree after the other: LightGBM's summation
        return out


def _check_lightgbm_model(model: dict) -> None:
    objective = model.get("objective", "").split()
    if not objective or objective[0] not in IDENTITY_OBJECTIVES or "sqrt" in objective:
        raise ValueError(f"only LightGBM regressors with an identity link can be converted, got objective "
                         f"{model.get('objective')!r}")
    if model.get("num_tree_per_iteration", 1) != 1 or model.get("average_output"):
        raise ValueError("LightGBM models with several trees per iteration or averaged output (random forest "
                         "mode) cannot be converted")


def _breadth_first(root: dict) -> list[dict]:
    """The nodes of a dumped LightGBM tree in breadth-first order, each with its children's positions.

    XGBoost's predictor needs this order: with nodes numbered depth first, XGBoost 3.2 loads the
    tree without complaint and walks rows to wrong leaves.
    """
    nodes, position = [root], 0
    children: list[tuple[int, int]] = []
    while position < len(nodes):
        node = nodes[position]
        if "split_feature" in node:
            children.append((len(nodes), len(nodes) + 1))
            nodes += [node["left_child"], node["right_child"]]
        else:
            children.append((-1, -1))
        position += 1
    return [{**node, "children": pair} for node, pair in zip(nodes, children)]


def _xgboost_tree(nodes: list[dict], tree_id: int, num_feature: int) -> dict:
    """One XGBoost JSON tree whose leaves hold their own node number."""
    count = len(nodes)
    left, right = [n["children"][0] for n in nodes], [n["children"][1] for n in nodes]
    parents = [2147483647] * count
    for parent, (a, b) in enumerate(zip(left, right)):
        if a != -1:
            parents[a] = parents[b] = parent
    conditions, features, default_left = [], [], []
    for number, node in enumerate(nodes):
        if "split_feature" not in node:
            conditions.append(float(number))
            features.append(0)
            default_left.append(0)
            continue
        if "leaf_coeff" in node or node.get("decision_type") != "<=":
            raise ValueError(f"LightGBM split {node.get('decision_type')!r} cannot be converted (categorical or "
                             f"linear trees are not supported)")
        if node["missing_type"] == "Zero":
            raise ValueError("LightGBM zero_as_missing splits cannot be converted")
        threshold = float(node["threshold"])
        conditions.append(_float32_strict_bound(threshold))
        features.append(int(node["split_feature"]))
        default_left.append(int(node["default_left"] if node["missing_type"] == "NaN" else 0.0 <= threshold))
    zeros = [0.0] * count
    return {"base_weights": zeros, "categories": [], "categories_nodes": [], "categories_segments": [],
            "categories_sizes": [], "default_left": default_left, "id": tree_id, "left_children": left,
            "loss_changes": zeros, "parents": parents, "right_children": right, "split_conditions": conditions,
            "split_indices": features, "split_type": [0] * count, "sum_hessian": zeros,
            "tree_param": {"num_deleted": "0", "num_feature": str(num_feature), "num_nodes": str(count),
                           "size_leaf_vector": "1"}}


def _float32_strict_bound(threshold: float) -> float:
    """The float32 ``c`` with ``x < c`` iff ``x <= threshold`` for every float32 ``x``."""
    with np.errstate(over="ignore"):
        below = np.float32(threshold)
    if float(below) > threshold:
        below = np.nextafter(below, np.float32(-np.inf))
    bound = np.nextafter(below, np.float32(np.inf))
    if not np.isfinite(bound) or not np.isfinite(below):
        raise ValueError(f"LightGBM threshold {threshold!r} is beyond float32 range and cannot be converted")
    return float(bound)


def _xgboost_version(text: str) -> list[int]:
    return [int("".join(ch for ch in part if ch.isdigit()) or 0) for part in text.split(".")[:3]]
