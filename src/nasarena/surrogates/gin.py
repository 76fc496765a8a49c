"""A GIN (graph isomorphism network) surrogate in plain PyTorch (NAS-Bench-301 Sec. 3, App. E.2).

Input is the ``"graph"`` encoding every space provides, one flat float vector per architecture:
``[adjacency (n*n, row-major, [i, j] = 1 for an edge i -> j), node features (n*f, one-hot)]``
with ``(n, f) = space.graph_size`` (the settings ``num_nodes`` and ``num_features``). Nodes
whose features are all zero are padding (smaller graphs widened to n nodes): they take no
part in message passing, batch norm or the readout, wherever they sit.

The network is the Open Graph Benchmark GIN with a virtual node that the paper used,
written with dense batched adjacency products instead of PyTorch Geometric (which is not
needed): node features (plus a one-hot of each node's degree) are embedded linearly, then
``num_layers`` GIN layers ``h <- MLP((1 + eps) h + sum of the messages)`` with batch norm,
ReLU and dropout, a virtual node connected to every node of its graph between layers, a
mean (or sum) readout over the nodes and a linear head with a sigmoid, so the network
predicts an accuracy in (0, 1). Messages follow the edges' direction (Table 6: undirected
graph false, self-loops false); both are settings.

Ops sit on nodes in these encodings, so messages carry no edge features: a node receives
the plain sum of its in-neighbours' states, as in the original GIN (Xu et al. 2019).

Training follows the paper's code: Adam with a cosine schedule down to ``learning_rate_min``,
a regression loss on ``log(1 - accuracy)`` when ``log_transform`` (App. B: it weights the fit
on well-performing architectures), plus the GATES pairwise hinge ranking loss over the pairs
of each batch (App. E.2, margin 0.1), and early stopping on the validation loss (patience 30
epochs, as the paper's code) with the best epoch's weights kept. The regression term is MSE
(App. B); ``"l1"`` is the one the released configuration used. Defaults are the Table 6
values (hidden dim. 24, 8 layers, dropout 0.035, learning rate 0.0777, batch size 51, 128
epochs, virtual node, node-degree one-hot). Batch norm in evaluation mode uses running
statistics, which need a few hundred steps to settle: very short fits predict poorly.

torch is imported only when a model is fitted or used (the ``[torch]`` extra); a fitted model
pickles its weights as numpy arrays and rebuilds the network on first use after unpickling.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..errors import import_extra
from .models import SurrogateModel

REGRESSION_LOSSES = ("mse", "l1")
READOUTS = ("mean", "sum")
#: ``1 - accuracy`` is clipped here before the log, so a perfect accuracy stays finite.
LOG_EPSILON = 1e-6
PREDICT_BATCH = 4096


def _require_torch():
    return import_extra("torch", "the GIN surrogate")


@dataclass(frozen=True)
class LossSpec:
    """A loss setting such as ``"mse+hinge"``: an optional regression term and an optional hinge term."""

    regression: str | None
    hinge: bool

    @classmethod
    def parse(cls, loss: str) -> LossSpec:
        terms = str(loss).split("+")
        regression = [t for t in terms if t in REGRESSION_LOSSES]
        known = set(REGRESSION_LOSSES) | {"hinge"}
        if not terms or len(set(terms)) != len(terms) or not set(terms) <= known or len(regression) > 1:
            raise ValueError(f"loss must be 'mse', 'l1' or 'hinge', or a regression loss and 'hinge' joined by '+' "
                             f"(e.g. 'mse+hinge'), got {loss!r}")
        return cls(regression[0] if regression else None, "hinge" in terms)


@dataclass(frozen=True)
class NetworkShape:
    """Everything that fixes the network's parameters (to rebuild it from its weights)."""

    in_features: int
    hidden_dim: int
    num_layers: int
    dropout: float
    virtual_node: bool
    readout: str


@dataclass(frozen=True)
class GraphArrays:
    """A batch of graphs as the network reads them.

    ``messages[b, j, i]`` is the weight of the message from node i to node j (the transposed
    adjacency, symmetrised and with self-loops when asked), ``inputs`` the node features with
    the degree one-hot appended, ``real`` the non-padding nodes.
    """

    messages: np.ndarray  # (B, n, n) float32
    inputs: np.ndarray  # (B, n, k) float32
    real: np.ndarray  # (B, n) bool

    @classmethod
    def from_encoding(cls, x, num_nodes: int, num_features: int, undirected: bool, self_loops: bool,
                      degree_one_hot: bool) -> GraphArrays:
        x = np.asarray(x, dtype=np.float32)
        width = num_nodes * num_nodes + num_nodes * num_features
        if x.ndim != 2 or x.shape[1] != width:
            raise ValueError(f"expected graph encodings of shape (architectures, {width}) for num_nodes={num_nodes} "
                             f"and num_features={num_features}, got shape {x.shape}")
        if not np.isfinite(x).all():
            raise ValueError("graph encodings must be finite")
        n = num_nodes
        adjacency = x[:, : n * n].reshape(-1, n, n)
        features = x[:, n * n :].reshape(-1, n, num_features)
        real = features.any(axis=2)
        if not real.any(axis=1).all():
            raise ValueError(f"graph encoding {int(np.flatnonzero(~real.any(axis=1))[0])} has no node with features")
        if (adjacency * ~(real[:, :, None] & real[:, None, :])).any():
            raise ValueError("a padding node (all-zero features) has an edge")
        symmetric = np.maximum(adjacency, adjacency.transpose(0, 2, 1))
        messages = symmetric if undirected else adjacency.transpose(0, 2, 1).copy()
        if self_loops:
            messages = messages + np.eye(n, dtype=np.float32) * real[:, :, None]
        inputs = features
        if degree_one_hot:
            neighbours = symmetric * (1 - np.eye(n, dtype=np.float32))
            degree = np.minimum(neighbours.sum(axis=2).astype(np.int64), n - 1)
            inputs = np.concatenate([features, np.eye(n, dtype=np.float32)[degree] * real[:, :, None]], axis=2)
        return cls(np.ascontiguousarray(messages, dtype=np.float32), np.ascontiguousarray(inputs, np.float32), real)

    def __len__(self) -> int:
        return len(self.real)


@functools.lru_cache(maxsize=None)
def _network_type():
    """The torch module class, defined on first use so that importing this module needs no torch."""
    torch = _require_torch()
    nn, functional = torch.nn, torch.nn.functional

    def gin_mlp(width: int, normalise_output: bool) -> nn.Sequential:
        layers = [nn.Linear(width, 2 * width), nn.BatchNorm1d(2 * width), nn.ReLU(), nn.Linear(2 * width, width)]
        if normalise_output:
            layers += [nn.BatchNorm1d(width), nn.ReLU()]
        return nn.Sequential(*layers)

    class DenseGIN(nn.Module):
        """GIN with a virtual node over padded dense graphs; node-wise layers see real nodes only."""

        def __init__(self, shape: NetworkShape):
            super().__init__()
            width, layers = shape.hidden_dim, shape.num_layers
            self.shape = shape
            self.encoder = nn.Linear(shape.in_features, width)
            self.eps = nn.Parameter(torch.zeros(layers))
            self.updates = nn.ModuleList(gin_mlp(width, False) for _ in range(layers))
            self.norms = nn.ModuleList(nn.BatchNorm1d(width) for _ in range(layers))
            if shape.virtual_node:
                self.virtual_start = nn.Parameter(torch.zeros(width))
                self.virtual_updates = nn.ModuleList(gin_mlp(width, True) for _ in range(layers - 1))
            self.head = nn.Linear(width, 1)

        def forward(self, messages, inputs, real):
            shape, graphs = self.shape, len(real)
            graph_of_node = real.nonzero()[:, 0]  # nodes are packed in (graph, node) order
            h = self.encoder(inputs[real])
            virtual = self.virtual_start.expand(graphs, -1) if shape.virtual_node else None
            for layer in range(shape.num_layers):
                if virtual is not None:
                    h = h + virtual[graph_of_node]
                dense = h.new_zeros(graphs, real.shape[1], h.shape[1])
                dense[real] = h
                received = torch.bmm(messages, dense)[real]
                out = self.norms[layer](self.updates[layer]((1 + self.eps[layer]) * h + received))
                if layer < shape.num_layers - 1:
                    out = functional.relu(out)
                out = functional.dropout(out, shape.dropout, self.training)
                if virtual is not None and layer < shape.num_layers - 1:
                    pooled = virtual.index_add(0, graph_of_node, h)
                    virtual = functional.dropout(self.virtual_updates[layer](pooled), shape.dropout, self.training)
                h = out
            pooled = h.new_zeros(graphs, h.shape[1]).index_add(0, graph_of_node, h)
            if shape.readout == "mean":
                pooled = pooled / real.sum(dim=1, keepdim=True)
            return torch.sigmoid(self.head(pooled).squeeze(-1))

    return DenseGIN


def _loss(torch, spec: LossSpec, predicted, target, log_transform: bool, margin: float):
    """Regression term (on log(1 - accuracy) with ``log_transform``) + mean hinge over the ordered pairs."""
    total = predicted.new_zeros(())
    if spec.regression is not None:
        if log_transform:
            fitted = torch.log(torch.clamp(1 - predicted, min=LOG_EPSILON))
            wanted = torch.log(torch.clamp(1 - target, min=LOG_EPSILON))
        else:
            fitted, wanted = predicted, target
        regression = torch.nn.functional.mse_loss if spec.regression == "mse" else torch.nn.functional.l1_loss
        total = total + regression(fitted, wanted)
    if spec.hinge:
        better = target[:, None] > target[None, :]
        if better.any():
            gaps = predicted[:, None] - predicted[None, :]
            total = total + torch.relu(margin - gaps[better]).mean()
    return total


class GINModel(SurrogateModel):
    """GIN surrogate on the ``"graph"`` encoding; see the module docstring for the model and training."""

    name = "gin"

    @classmethod
    def defaults(cls) -> dict:
        return dict(num_nodes=None, num_features=None, hidden_dim=24, num_layers=8, dropout=0.035,
                    learning_rate=0.0777, learning_rate_min=0.0, batch_size=51, epochs=128, readout="mean",
                    virtual_node=True, undirected=False, self_loops=False, degree_one_hot=True, loss="mse+hinge",
                    margin=0.1, log_transform=True, patience=30)

    @classmethod
    def for_space(cls, space, seed: int = 0, **settings) -> GINModel:
        """A model sized by ``space.graph_size``, the (nodes, features) of its graph encoding."""
        return cls(seed=seed, **{**cls.settings_for_space(space), **settings})

    @classmethod
    def settings_for_space(cls, space) -> dict:
        num_nodes, num_features = space.graph_size
        return {"num_nodes": num_nodes, "num_features": num_features}

    def __init__(self, seed: int = 0, **settings):
        unknown = sorted(set(settings) - set(self.defaults()))
        if unknown:
            raise ValueError(f"unknown GIN setting(s) {', '.join(unknown)}; known: {', '.join(self.defaults())}")
        super().__init__(seed=seed, **settings)
        self._check_settings()
        self.loss = LossSpec.parse(self.settings["loss"])
        self._network = None
        self._weights: dict[str, np.ndarray] | None = None
        self._shape: NetworkShape | None = None
        self.epochs_trained = 0
        self.best_epoch: int | None = None
        self.validation_history: list[float] = []

    def _check_settings(self) -> None:
        s = self.settings
        for key in ("num_nodes", "num_features"):
            if not isinstance(s[key], (int, np.integer)) or s[key] < 1:
                raise ValueError(f"GIN setting {key} must be a positive integer (the space's graph_size), "
                                 f"got {s[key]!r}")
        for key, low in (("hidden_dim", 1), ("num_layers", 1), ("batch_size", 2), ("epochs", 1), ("patience", 1)):
            if not isinstance(s[key], (int, np.integer)) or s[key] < low:
                raise ValueError(f"GIN setting {key} must be an integer >= {low}, got {s[key]!r}")
        if not 0.0 <= s["dropout"] < 1.0:
            raise ValueError(f"GIN setting dropout must be in [0, 1), got {s['dropout']!r}")
        if not s["learning_rate"] > 0 or not 0 <= s["learning_rate_min"] <= s["learning_rate"]:
            raise ValueError(f"GIN settings need learning_rate > 0 and 0 <= learning_rate_min <= learning_rate, got "
                             f"{s['learning_rate']!r} and {s['learning_rate_min']!r}")
        if s["readout"] not in READOUTS:
            raise ValueError(f"GIN setting readout must be one of {', '.join(READOUTS)}, got {s['readout']!r}")
        if not s["margin"] >= 0:
            raise ValueError(f"GIN setting margin must be >= 0, got {s['margin']!r}")

    def _graphs(self, x) -> GraphArrays:
        s = self.settings
        return GraphArrays.from_encoding(x, int(s["num_nodes"]), int(s["num_features"]), bool(s["undirected"]),
                                         bool(s["self_loops"]), bool(s["degree_one_hot"]))

    @staticmethod
    def _targets(y, rows: int, name: str) -> np.ndarray:
        y = np.asarray(y, dtype=np.float32)
        if y.shape != (rows,):
            raise ValueError(f"{name} must be 1-D with one accuracy per architecture ({rows}), got shape {y.shape}")
        if not (np.isfinite(y).all() and (y >= 0).all() and (y <= 1).all()):
            raise ValueError(f"{name} must hold accuracies in [0, 1] (fractions, not percent)")
        return y

    def fit(self, x, y, x_val=None, y_val=None):
        if (x_val is None) != (y_val is None):
            raise ValueError("pass both x_val and y_val for early stopping, or neither")
        torch = _require_torch()
        train = self._graphs(x)
        target = self._targets(y, len(train), "y")
        if len(train) < 2:
            raise ValueError(f"the GIN needs at least 2 training architectures (batch norm), got {len(train)}")
        validation = None
        if x_val is not None:
            graphs = self._graphs(x_val)
            validation = (graphs, self._targets(y_val, len(graphs), "y_val"))
        self.epochs_trained, self.best_epoch, self.validation_history = 0, None, []
        self._shape = NetworkShape(
            in_features=train.inputs.shape[2], hidden_dim=int(self.settings["hidden_dim"]),
            num_layers=int(self.settings["num_layers"]), dropout=float(self.settings["dropout"]),
            virtual_node=bool(self.settings["virtual_node"]), readout=self.settings["readout"])
        with torch.random.fork_rng(devices=[]):  # seeds dropout and initialisation, leaves the caller's stream
            torch.manual_seed(self.seed)
            self._network = self._train(torch, train, target, validation)
        self._weights = None
        return self

    def _train(self, torch, train: GraphArrays, target: np.ndarray, validation):
        s = self.settings
        network = _network_type()(self._shape)
        optimiser = torch.optim.Adam(network.parameters(), lr=float(s["learning_rate"]))
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, int(s["epochs"]),
                                                              eta_min=float(s["learning_rate_min"]))
        tensors = _as_tensors(torch, train, target)
        shuffle = torch.Generator().manual_seed(self.seed)
        # batches of at most batch_size, as equal as possible: none is left with one graph for batch norm
        num_batches = math.ceil(len(train) / int(s["batch_size"]))
        best, best_state, stale = math.inf, None, 0
        for epoch in range(int(s["epochs"])):
            network.train()
            for batch in torch.tensor_split(torch.randperm(len(train), generator=shuffle), num_batches):
                messages, inputs, real, wanted = (t[batch] for t in tensors)
                loss = _loss(torch, self.loss, network(messages, inputs, real), wanted,
                             bool(s["log_transform"]), float(s["margin"]))
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
            schedule.step()
            self.epochs_trained = epoch + 1
            if validation is None:
                continue
            score = self._objective(torch, network, *validation)
            self.validation_history.append(score)
            if score < best:
                best, stale, self.best_epoch = score, 0, epoch + 1
                best_state = {k: v.detach().clone() for k, v in network.state_dict().items()}
            else:
                stale += 1
                if stale >= int(s["patience"]):
                    break
        if best_state is not None:
            network.load_state_dict(best_state)
        return network.eval()

    def objective(self, x, y) -> float:
        """The fitted model's training loss on (x, y): what early stopping watches on the validation set."""
        network = self._fitted_network()
        graphs = self._graphs(x)
        return self._objective(_require_torch(), network, graphs, self._targets(y, len(graphs), "y"))

    def _objective(self, torch, network, graphs: GraphArrays, target: np.ndarray) -> float:
        """The loss in evaluation mode, in batches of the training batch size, in order (the hinge
        term needs batches); the mean over batches."""
        tensors = _as_tensors(torch, graphs, target)
        network.eval()
        size = int(self.settings["batch_size"])
        losses = []
        with torch.no_grad():
            for start in range(0, len(graphs), size):
                messages, inputs, real, wanted = (t[start : start + size] for t in tensors)
                losses.append(float(_loss(torch, self.loss, network(messages, inputs, real), wanted,
                                          bool(self.settings["log_transform"]), float(self.settings["margin"]))))
        return float(np.mean(losses))

    def _fitted_network(self):
        if self._network is None:
            if self._weights is None:
                raise RuntimeError("the GIN model is not fitted: call fit() first")
            torch = _require_torch()
            network = _network_type()(self._shape)
            network.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in self._weights.items()})
            self._network, self._weights = network.eval(), None
        return self._network

    def predict(self, x) -> np.ndarray:
        network = self._fitted_network()
        torch = _require_torch()
        graphs = self._graphs(x)
        tensors = _as_tensors(torch, graphs)
        predictions = []
        with torch.no_grad():
            for start in range(0, len(graphs), PREDICT_BATCH):
                predictions.append(network(*(t[start : start + PREDICT_BATCH] for t in tensors)))
        return torch.cat(predictions).numpy().astype(np.float64) if predictions else np.zeros(0)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        network = state.pop("_network")
        if network is not None:
            state["_weights"] = {k: v.detach().cpu().numpy().copy() for k, v in network.state_dict().items()}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._network = None  # rebuilt from _weights on first use: unpickling needs no torch


def _as_tensors(torch, graphs: GraphArrays, target: np.ndarray | None = None) -> tuple:
    tensors = (torch.from_numpy(graphs.messages), torch.from_numpy(graphs.inputs), torch.from_numpy(graphs.real))
    return tensors if target is None else (*tensors, torch.from_numpy(target))

