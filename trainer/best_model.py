"""The run's ``best/`` folder: the promoted model as a weights file and an export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from networks import build_network


def model_from(weights: dict, network_config, game):
    """The network of ``network_config`` for ``game`` holding ``weights`` (numpy arrays), in eval mode."""
    import torch  # heavy dependency (torch): imported where it is used

    model = build_network(network_config, game.observation_shape, game.num_actions)
    model.load_state_dict({name: torch.as_tensor(value) for name, value in weights.items()})
    return model.eval()


def write_best(
    folder: Path, weights: dict, network_config, game, extra: dict, on_error: Callable[[str], None],
    provenance: dict | None = None,
) -> None:
    """``folder/model.pt`` (``networks.checkpoint.save_model``) plus ONNX, safetensors and the JSON
    sidecar (``networks.export.export_model``), all written atomically; ``extra`` goes into both,
    ``provenance`` (``trainer.reporting.run_provenance``) into the sidecar and into the weights
    file's ``extra`` (so that ``export-model`` of ``model.pt`` carries it on).

    A failed export is reported to ``on_error`` and training goes on; a failed weights file raises.
    """
    from networks.checkpoint import save_model  # heavy dependency (torch): imported where it is used
    from networks.export import export_model

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = model_from(weights, network_config, game)
    weights_extra = extra if provenance is None else {**extra, "provenance": provenance}
    save_model(folder / "model.pt", model, network_config, game.name, game.version, extra=weights_extra)
    try:
        export_model(model, network_config, game.name, game.version, folder, extra=extra, provenance=provenance)
    except (ValueError, RuntimeError, OSError) as exc:  # the export must never stop training
        on_error(f"ONNX export of the best model failed (training goes on): {exc}")
