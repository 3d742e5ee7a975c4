"""Network configuration: which architecture, and its sizes. Pure Python (no torch import).

A :class:`NetworkConfig` is the only thing besides the game's ``observation_shape`` and
``num_actions`` needed to rebuild a network, so checkpoints and exported models store it as a plain
dict (:meth:`NetworkConfig.to_dict`) and rebuild it with :meth:`NetworkConfig.from_dict`, which
rejects unknown keys.

Names follow the Leela/KataGo habit: ``b6c64`` is a ResNet with 6 residual blocks of 64 channels,
``mlp128x2`` an MLP with two hidden layers of 128 units (``mlp128-64`` when the widths differ).
"""

from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass, field, fields, replace

import games
from games.checks import check_int

#: Accepted values of :attr:`NetworkConfig.kind`.
KINDS = ("resnet", "mlp")

_RESNET_NAME = re.compile(r"^b(\d+)c(\d+)$")
_MLP_NAME = re.compile(r"^mlp(\d+)x(\d+)$")
_MLP_LIST_NAME = re.compile(r"^mlp(\d+(?:-\d+)*)$")


def _check_int(name: str, value, minimum: int) -> None:
    check_int(f"NetworkConfig.{name}", value, minimum)


@dataclass(frozen=True)
class NetworkConfig:
    """Architecture and sizes of a policy/value network.

    Attributes:
        kind: ``"resnet"`` (the AlphaZero residual tower, :mod:`networks.resnet`) or ``"mlp"``
            (:mod:`networks.mlp`, for tic-tac-toe).
        num_blocks: residual blocks in the tower (resnet only), >= 0.
        channels: convolution channels of the stem and every block (resnet only), >= 1.
        policy_channels: 1x1 convolution channels of the policy head (resnet only), >= 1;
            AlphaGo Zero uses 2 (Silver et al. 2017, Methods, "Neural network architecture").
        value_channels: 1x1 convolution channels of the value head (resnet only), >= 1;
            AlphaGo Zero uses 1.
        value_hidden: width of the value head's hidden fully connected layer, >= 1 (both kinds);
            AlphaGo Zero uses 256.
        mlp_hidden: widths of the MLP's hidden layers (mlp only), a non-empty tuple of ints >= 1.

    Raises:
        ValueError: on construction, for an unknown ``kind`` or a size out of range; the message
            names the field, the accepted values and the value given.
    """

    kind: str = "resnet"
    num_blocks: int = 6
    channels: int = 64
    policy_channels: int = 2
    value_channels: int = 1
    value_hidden: int = 64
    mlp_hidden: tuple[int, ...] = field(default=(128, 128))

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"NetworkConfig.kind: expected one of {list(KINDS)}, got {self.kind!r}")
        _check_int("num_blocks", self.num_blocks, 0)
        _check_int("channels", self.channels, 1)
        _check_int("policy_channels", self.policy_channels, 1)
        _check_int("value_channels", self.value_channels, 1)
        _check_int("value_hidden", self.value_hidden, 1)
        hidden = self.mlp_hidden
        if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__iter__"):
            raise ValueError(
                f"NetworkConfig.mlp_hidden: expected a non-empty sequence of ints >= 1, got {hidden!r}"
            )
        hidden = tuple(hidden)
        if not hidden:
            raise ValueError("NetworkConfig.mlp_hidden: expected a non-empty sequence of ints >= 1, got ()")
        for i, width in enumerate(hidden):
            _check_int(f"mlp_hidden[{i}]", width, 1)
        object.__setattr__(self, "mlp_hidden", hidden)

    @property
    def name(self) -> str:
        """Short name: ``b6c64`` for a ResNet, ``mlp128x2`` or ``mlp128-64`` for an MLP."""
        if self.kind == "resnet":
            return f"b{self.num_blocks}c{self.channels}"
        if len(set(self.mlp_hidden)) == 1:
            return f"mlp{self.mlp_hidden[0]}x{len(self.mlp_hidden)}"
        return "mlp" + "-".join(str(w) for w in self.mlp_hidden)

    def to_dict(self) -> dict:
        """Plain dict (str, int and list values) for checkpoints and JSON sidecars."""
        data = asdict(self)
        data["mlp_hidden"] = list(self.mlp_hidden)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> NetworkConfig:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: if ``data`` is not a dict, has a key that is not a field (the message lists
                the accepted keys), or a value out of range.
        """
        if not isinstance(data, dict):
            raise ValueError(f"NetworkConfig.from_dict: expected a dict, got {type(data).__name__}")
        accepted = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(accepted))
        if unknown:
            raise ValueError(f"NetworkConfig: unknown key(s) {unknown}; accepted keys are {accepted}")
        return cls(**data)

    @classmethod
    def from_name(cls, name: str, **overrides) -> NetworkConfig:
        """Parse ``b6c64``, ``mlp128x2`` or ``mlp128-64``; ``overrides`` set the other fields.

        Raises:
            ValueError: if ``name`` matches none of the three forms.
        """
        match = _RESNET_NAME.match(name)
        if match:
            return cls(kind="resnet", num_blocks=int(match[1]), channels=int(match[2]), **overrides)
        match = _MLP_NAME.match(name)
        if match:
            return cls(kind="mlp", mlp_hidden=(int(match[1]),) * int(match[2]), **overrides)
        match = _MLP_LIST_NAME.match(name)
        if match:
            return cls(kind="mlp", mlp_hidden=tuple(int(w) for w in match[1].split("-")), **overrides)
        raise ValueError(
            f"network name {name!r}: expected 'b<blocks>c<channels>' (e.g. b6c64), "
            "'mlp<width>x<layers>' (e.g. mlp128x2) or 'mlp<w1>-<w2>-...' (e.g. mlp128-64)"
        )

    def replace(self, **changes) -> NetworkConfig:
        """A copy with ``changes`` applied (validated like the constructor)."""
        return replace(self, **changes)


def default_config(game_name: str, gpu: bool = False) -> NetworkConfig:
    """The project's default network for a registered game id: ``games.knowledge(game).default_network(gpu)``.

    One object per ``(game_name, gpu)`` (cached), so the constants below are the defaults.

    Raises:
        ValueError: for a game id that is not registered; the message lists the known ids.
    """
    if game_name not in games.names():
        raise ValueError(f"no default network for game {game_name!r}; expected one of {games.names()}")
    return _default_config(game_name, bool(gpu))


@functools.cache
def _default_config(game_name: str, gpu: bool) -> NetworkConfig:
    return NetworkConfig(**games.knowledge(games.make(game_name)).default_network(gpu=gpu))


#: Tic-tac-toe default: a two-layer MLP; the whole game fits in it easily.
TICTACTOE_DEFAULT = default_config("tictactoe")

#: Connect Four default for CPU runs (2-4 cores): 4 blocks of 32 channels, 77k parameters. Measured
#: with ``scripts/bench_network.py`` on one core of the 2-core development machine (batch norm folded):
#: about 9,000 positions per CPU second at batch 64-256 and 1,800 at batch 1, against about 2,200 and
#: 700 for b6c64 (447k parameters): b6c64 would cost 4x the self-play time per simulation on a CPU.
CONNECT4_CPU_DEFAULT = default_config("connect4")  # as configs/network/b4c32.yaml

#: Connect Four suggestion for a GPU box: 10 blocks of 128 channels (about 3M parameters), with
#: self-play batches of 256 or more so that the GPU stays busy.
CONNECT4_GPU_DEFAULT = default_config("connect4", True)


#: The runtimes that run a network on the CPU for search (``selfplay.inference``,
#: ``arena.inference``): ``networks.evaluator.TorchEvaluator`` or ONNX Runtime
#: (``networks.export.onnx_runtime_evaluator``), the same outputs within float rounding.
INFERENCE_RUNTIMES = ("torch", "onnx")
#: Where a network runs (``selfplay.device``, ``trainer.device``): ``"auto"`` (CUDA when present),
#: ``"cpu"`` or ``"cuda"`` (``networks.evaluator.resolve_device``).
DEVICE_CHOICES = ("auto", "cpu", "cuda")


def check_device(name: str, value) -> None:
    """Raises ``ValueError`` ``"NAME: expected one of ['auto', 'cpu', 'cuda'] or 'cuda:N', got
    VALUE"`` unless ``value`` names a device (whether CUDA is present is ``resolve_device``'s check)."""
    if not (value in DEVICE_CHOICES or (isinstance(value, str) and value[:5] == "cuda:" and value[5:].isdigit())):
        raise ValueError(f"{name}: expected one of {list(DEVICE_CHOICES)} or 'cuda:N', got {value!r}")
