"""What a client process records in a phase, and the figures computed from it."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# Finished games whose names a client process keeps per game type (their Redis keys are
# measured after the run).
KEPT_NAMES = 8


@dataclass
class Sample:
    """What one client process recorded in one phase (picklable, merged across processes)."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    request_bytes: Counter[str] = field(default_factory=Counter)
    response_bytes: Counter[str] = field(default_factory=Counter)
    finished: Counter[str] = field(default_factory=Counter)
    finished_names: dict[str, list[str]] = field(default_factory=dict)
    window_s: float = 0.0
    client_cpu: list[float] = field(default_factory=list)  # share of a core, one per process
    # label -> share of a core; "server_switches": the server's context switches per second
    monitored: dict[str, float] = field(default_factory=dict)
    redis: dict[str, Any] = field(default_factory=dict)  # INFO deltas over the window

    def latency_list(self, key: str) -> list[float]:
        found = self.latencies.get(key)
        if found is None:
            found = self.latencies[key] = []
        return found

    def keep_name(self, game: str, name: str) -> None:
        names = self.finished_names.setdefault(game, [])
        if len(names) < KEPT_NAMES:
            names.append(name)

    def calls(self) -> int:
        """Calls completed in the window, every RPC (per-game keys not counted twice)."""
        return sum(len(v) for k, v in self.latencies.items() if "@" not in k)

    def merge(self, other: Sample) -> None:
        for key, values in other.latencies.items():
            self.latency_list(key).extend(values)
        self.errors.update(other.errors)
        self.reasons.update(other.reasons)
        self.request_bytes.update(other.request_bytes)
        self.response_bytes.update(other.response_bytes)
        self.finished.update(other.finished)
        for game, names in other.finished_names.items():
            for name in names:
                self.keep_name(game, name)
        self.window_s = max(self.window_s, other.window_s)
        self.client_cpu += other.client_cpu
        for label, share in other.monitored.items():
            self.monitored[label] = self.monitored.get(label, 0.0) + share
        self.redis = self.redis or other.redis


@dataclass(frozen=True)
class Figures:
    calls: int
    calls_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float
    errors: int
    request_bytes: float
    response_bytes: float

    @classmethod
    def of(cls, sample: Sample, key: str, window_s: float) -> Figures:
        values = sorted(sample.latencies.get(key, []))
        n = len(values)

        def rank(q: float) -> float:
            return values[max(0, math.ceil(q * n) - 1)] * 1000 if n else math.nan

        return cls(
            calls=n,
            calls_per_s=n / window_s if window_s > 0 else math.nan,
            p50_ms=rank(0.50),
            p90_ms=rank(0.90),
            p99_ms=rank(0.99),
            max_ms=values[-1] * 1000 if n else math.nan,
            mean_ms=sum(values) / n * 1000 if n else math.nan,
            errors=sample.errors.get(key, 0),
            request_bytes=sample.request_bytes.get(key, 0) / n if n else math.nan,
            response_bytes=sample.response_bytes.get(key, 0) / n if n else math.nan,
        )

    def ratios(self, base: Figures) -> dict[str, float]:
        """Each figure over the baseline's (throughput: higher is better; latency: lower)."""
        return {
            name: ratio(getattr(self, name), getattr(base, name))
            for name in ("calls_per_s", "p50_ms", "p90_ms", "p99_ms", "max_ms")
        }

    def as_json(self, base: Figures | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "calls_per_s": num(self.calls_per_s),
            "p50_ms": num(self.p50_ms),
            "p90_ms": num(self.p90_ms),
            "p99_ms": num(self.p99_ms),
            "max_ms": num(self.max_ms),
            "mean_ms": num(self.mean_ms),
            "errors": self.errors,
            "calls": self.calls,
            "request_bytes": num(self.request_bytes),
            "response_bytes": num(self.response_bytes),
        }
        if base is not None:
            out["vs_baseline"] = {k: num(v) for k, v in self.ratios(base).items()}
        return out


def ratio(a: float, b: float) -> float:
    return a / b if b and not math.isnan(a) and not math.isnan(b) else math.nan


def num(value: float, digits: int = 4) -> float | None:
    return None if math.isnan(value) else round(value, digits)
