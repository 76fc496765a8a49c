"""Fitting a surrogate benchmark from training runs (NB301 Sec. 3, Appendix G).

The recipe: encode every architecture, split the *architectures* 0.8/0.1/0.1 stratified by
the source that collected them (so repeated runs and other fidelities of one architecture
never straddle train and test), fit one ensemble of ``members`` seeded learners per fidelity
(boosted trees stop early on the validation part), fit the runtime model on the runs that
have a training time, measure every fit on the test part, find the optimum (over the
enumerated space when it is finite, else over the training architectures), and record what
the data was. :func:`fit_surrogate` returns the artefact; :func:`~.artifact.save` writes it.

With ``settings.tabulate`` (finite spaces), every architecture is predicted once into the
artefact's prediction table before the validations, and the validations and the optimum are
computed from that table: they describe exactly what the benchmark answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .artifact import DataManifest, Optimum, SurrogateArtifact, Validation, check_name
from .data import TrainingData
from .encoding import ArchitectureEncoder
from .evaluation import evaluate, predict_in_chunks
from .models import Ensemble, model_class
from .runtime import RuntimeModel
from .settings import FitSettings, HeldOutData
from .spaces import default_encoding, finite_index, space_by_name
from .splits import Split, stratified_split
from .tabulation import tabulate


def split_by_architecture(data: TrainingData, rng: np.random.Generator,
                          fractions=(0.8, 0.1, 0.1)) -> Split:
    """Row indices of a split of the architectures, stratified by each one's (first) source."""
    identities, first, inverse = np.unique(data.identities.astype(str), return_index=True, return_inverse=True)
    parts = stratified_split(data.source[first], rng, fractions)
    membership = np.zeros(len(identities), dtype=np.int8)
    membership[parts.validation], membership[parts.test] = 1, 2
    row_part = membership[inverse.ravel()]
    return Split(*(np.flatnonzero(row_part == p) for p in range(3)))


def fit_surrogate(
    data: TrainingData,
    space_name: str,
    name: str,
    settings: FitSettings = FitSettings(),
    held_out: Sequence[HeldOutData] = (),
    dataset: str | None = None,
    source_benchmark: str | None = None,
) -> SurrogateArtifact:
    """Fit a surrogate benchmark named ``name`` (``<space>-<model>-v<major>.<minor>``) on ``data``."""
    check_name(name)  # before the fit, not after it
    if settings.tabulate and finite_index(space_name) is None:
        raise ValueError(f"tabulate=True needs a finite space (nb101, nb201); the {space_name} space cannot be "
                         f"enumerated: fit with tabulate=False")
    space = space_by_name(space_name)
    encoder = ArchitectureEncoder(space, settings.encoding or default_encoding(space_name))
    x = encoder.encode_many(data.archs, data.identities)
    split = split_by_architecture(data, np.random.default_rng(settings.seed), settings.fractions)
    fidelities = data.fidelities
    ensembles = fit_ensembles(space, settings, x, data, split.train, split.validation)
    runtime = _fit_runtime(settings, x, data, split) if settings.runtime else None
    artifact = SurrogateArtifact(
        name=name, space=space_name, encoding=encoder.kind, accuracy_model=ensembles[fidelities[-1]],
        runtime_model=runtime,
        data=DataManifest(sha256=data.sha256, rows=len(data), sources=data.sources, description=data.description,
                          split=split, value_scale=data.value_scale),
        fidelity=fidelities[-1], lower_fidelity_models={f: ensembles[f] for f in fidelities[:-1]},
        model=settings.model, dataset=dataset, source_benchmark=source_benchmark,
        notes="; ".join((*data.notes, _settings_note(settings, runtime, data))), settings=settings,
    )
    if settings.tabulate:
        artifact.prediction_table = tabulate(ensembles, runtime, finite_index(space_name), encoder.kind)
    _measure(artifact, encoder, data, x, held_out)
    return artifact


def add_prediction_table(artifact: SurrogateArtifact, data: TrainingData,
                         held_out: Sequence[HeldOutData] = ()) -> SurrogateArtifact:
    """``artifact`` with every architecture's predictions tabulated from its own models, which stay
    untouched, and its validations and optimum recomputed from the table: what :func:`fit_surrogate`
    with ``tabulate=True`` returns for the same models. ``data`` and ``held_out`` are the ones it was
    fitted and validated on (checked against the recorded digest), so tabulating an existing
    artefact needs no refit (a refit of boosted trees on another machine may differ in the last bit)."""
    index = finite_index(artifact.space)
    if index is None:
        raise ValueError(f"{artifact.name}: the {artifact.space} space cannot be enumerated, so it has no table")
    if data.sha256 != artifact.data.sha256:
        raise ValueError(f"{artifact.name} was fitted on data with sha256 {artifact.data.sha256}, not on the "
                         f"given data ({data.sha256}): pass the recipe's own data")
    ensembles = {fidelity: artifact.ensemble(fidelity) for fidelity in artifact.fidelities}
    settings = replace(artifact.settings, tabulate=True) if artifact.settings is not None else None
    tabulated = replace(artifact, settings=settings,
                        prediction_table=tabulate(ensembles, artifact.runtime_model, index, artifact.encoding))
    _measure(tabulated, ArchitectureEncoder(space_by_name(artifact.space), artifact.encoding), data, None, held_out)
    return tabulated


def _measure(artifact: SurrogateArtifact, encoder: ArchitectureEncoder, data: TrainingData, x: np.ndarray | None,
             held_out: Sequence[HeldOutData]) -> None:
    """Set the artefact's validations (test split, then each held-out set) and optimum; ``x``, the
    data's encodings, may be None when the artefact has a prediction table (not needed then)."""
    split = artifact.data.split
    validations: list[Validation] = list(evaluate(artifact, data, split.test, "test split", encoder,
                                                  None if x is None else x[split.test]))
    for extra in held_out:
        validations.extend(evaluate(artifact, extra.data, np.arange(len(extra.data)), extra.name, encoder))
    artifact.validations = tuple(validations)
    artifact.optimum = find_optimum(artifact, encoder, data, x)


def fit_ensembles(space, settings: FitSettings, x: np.ndarray, data: TrainingData, train, validation) -> dict:
    """One accuracy ensemble per fidelity of ``data``, fitted on ``train`` rows (early stopping on
    ``validation`` rows where the model uses it)."""
    ensembles = {}
    model_settings = {**model_class(settings.model).settings_for_space(space), **dict(settings.model_settings)}
    for fidelity in data.fidelities:
        at = data.fidelity == fidelity
        fit_rows, stop_rows = train[at[train]], validation[at[validation]]
        if len(fit_rows) == 0:
            raise ValueError(f"no training runs at {fidelity} epochs after the split: add data at that fidelity")
        ensemble = Ensemble(settings.model, members=settings.members, seed=settings.seed, **model_settings)
        y = data.valid_accuracy
        if len(stop_rows):
            ensembles[fidelity] = ensemble.fit(x[fit_rows], y[fit_rows], x[stop_rows], y[stop_rows])
        else:
            ensembles[fidelity] = ensemble.fit(x[fit_rows], y[fit_rows])
    return ensembles


def _fit_runtime(settings: FitSettings, x, data: TrainingData, split: Split) -> RuntimeModel | None:
    timed = data.cost_seconds > 0
    train, validation = split.train[timed[split.train]], split.validation[timed[split.validation]]
    if len(train) < 2:
        return None
    model = RuntimeModel(seed=settings.seed)
    return model.fit(x[train], data.fidelity[train], data.cost_seconds[train], x[validation],
                     data.fidelity[validation], data.cost_seconds[validation])


def find_optimum(artifact: SurrogateArtifact, encoder: ArchitectureEncoder, data: TrainingData,
                 x: np.ndarray) -> Optimum:
    """Best noise-free predicted validation accuracy at the highest fidelity (see ``Optimum``)."""
    index = finite_index(artifact.space)
    if artifact.prediction_table is not None:
        mean = artifact.prediction_table.mean[artifact.fidelity]
        best = int(np.argmax(mean))
        return Optimum(float(mean[best]), index.identity(best), f"all {index.size:,} architectures of the space")
    if index is not None:
        rows = np.arange(index.size)
        mean = np.concatenate([predict_in_chunks(artifact.accuracy_model, index.encode_rows(chunk, encoder.kind))[0]
                               for chunk in np.array_split(rows, max(1, index.size // 100_000))])
        best = int(np.argmax(mean))
        return Optimum(float(mean[best]), index.identity(best), f"all {index.size:,} architectures of the space")
    _, first = np.unique(data.identities.astype(str), return_index=True)
    mean = predict_in_chunks(artifact.accuracy_model, x[first])[0]
    best = int(np.argmax(mean))
    return Optimum(float(mean[best]), str(data.identities[first[best]]),
                   f"the {len(first):,} architectures of the training data (the space is not enumerable; an "
                   f"architecture outside them may be predicted higher, so regret can be negative)")


def _settings_note(settings: FitSettings, runtime: RuntimeModel | None, data: TrainingData) -> str:
    overrides = ", ".join(f"{k}={v}" for k, v in settings.model_settings) or "the model's defaults"
    timed = int(np.sum(data.cost_seconds > 0))
    runtime_note = (f"runtime model: LightGBM on log seconds per epoch from {timed:,} timed runs" if runtime
                    else "no runtime model (the data holds too few training times): cost is 1 s per epoch")
    return (f"ensemble of {settings.members} {settings.model} learners (seed {settings.seed}; {overrides}); "
            f"split {settings.fractions} of architectures stratified by source; {runtime_note}")
