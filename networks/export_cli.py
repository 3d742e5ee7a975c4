"""``export-model CHECKPOINT OUT_DIR``: export a weights file or training checkpoint for deployment.

Writes ``OUT_DIR/model.onnx``, ``model.safetensors`` and ``model.json`` (see
:mod:`networks.export`), checks ONNX Runtime against torch within 1e-5, and prints a one-line
summary. Errors print ``error: ...`` on stderr and exit with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="export-model",
        description="Export a model checkpoint as ONNX + safetensors + JSON sidecar "
        "(model.onnx, model.safetensors, model.json).",
    )
    parser.add_argument(
        "checkpoint", help="weights file from save_model, or a training checkpoint embedding one"
    )
    parser.add_argument("out_dir", help="folder to write model.onnx, model.safetensors and model.json into")
    parser.add_argument("--game", default=None, help="refuse the checkpoint unless it is for this game id")
    parser.add_argument("--opset", type=int, default=None, help="ONNX opset (default 17, at least 17)")
    parser.add_argument(
        "--no-verify", action="store_true", help="skip the ONNX Runtime vs torch parity check"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``export-model`` console script; returns the exit status (0 or 2)."""
    args = _parser().parse_args(argv)
    from networks.checkpoint import load_model  # heavy dependency (torch): imported where it is used
    from networks.export import OPSET, export_model

    try:
        model, metadata = load_model(args.checkpoint, expected_game=args.game)
        extra = dict(metadata.extra)
        provenance = extra.pop("provenance", None)  # a run's best/model.pt carries its provenance
        extra.setdefault("source_checkpoint", str(args.checkpoint))
        out = export_model(
            model,
            metadata.config,
            metadata.game_name,
            metadata.game_version,
            args.out_dir,
            extra=extra,
            opset=OPSET if args.opset is None else args.opset,
            verify=not args.no_verify,
            provenance=provenance if isinstance(provenance, dict) else None,
        )
    except (FileNotFoundError, ValueError, OSError) as error:
        print(f"export-model: error: {error}", file=sys.stderr)
        return 2
    print(f"exported {metadata.config.name} for {metadata.game_name} v{metadata.game_version} to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
