"""Independent tasks on Ray: the one place nasarena starts Ray, submits work and collects results.

Experiments (``run --backend ray``), data collection (``collect --backend ray``) and one-shot
searches (``oneshot run --backend ray``) are all lists of independent, resumable tasks whose
results are written by the caller as they finish (:func:`.pool.run_tasks` with
``backend="ray"`` comes here). Ray is started here only if the caller has not connected to a
cluster already (``ray.init(address=...)`` first, to run on one), and stopped again only if
started here. Where the cluster has GPUs, each task may ask for one, so a cluster of GPU
machines trains one architecture or one supernet per GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..errors import import_extra


def run_on_ray(function: Callable[..., Any], arguments: Sequence[tuple], jobs: int,
               on_result: Callable[[tuple, Any], None], gpu_per_task: bool = False) -> None:
    """Call ``function(*argument)`` for every argument tuple as a Ray task (at most ``jobs`` CPUs
    when Ray is started here) and ``on_result(argument, result)`` in the driver as each finishes;
    ``gpu_per_task``: one GPU per task where the cluster has GPUs (training), none otherwise."""
    ray = import_extra("ray", "the ray backend")
    started_here = not ray.is_initialized()
    if started_here:
        # worker_niceness 0: tasks at the command's own priority, as on the process pool (Ray's
        # default, 15, lets any other busy process of the machine starve them)
        ray.init(num_cpus=max(1, jobs), include_dashboard=False, log_to_driver=False,
                 _system_config={"worker_niceness": 0})
    try:
        gpus = 1 if gpu_per_task and ray.cluster_resources().get("GPU", 0) >= 1 else 0
        remote = ray.remote(num_gpus=gpus)(function)
        running = {remote.remote(*argument): argument for argument in arguments}
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            for reference in ready:
                on_result(running.pop(reference), ray.get(reference))
    finally:
        if started_here:
            ray.shutdown()
