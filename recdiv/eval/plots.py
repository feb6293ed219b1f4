"""Plots of the statistics and meta-evaluation results (matplotlib, Agg backend).

Every function returns the `Figure`; pass `path` to also save a PNG (written atomically) and `ax` to draw
into an existing axes.

- `plot_pvalue_curves`: Valcarce p-value curves / Sakai ASL curves (pairwise p-values sorted decreasingly).
- `plot_robustness`: Kendall τ_b against the degradation level (sparsity or popularity bias).
- `plot_perturbation`: metric correlation / p-value against the perturbation level (P&R Exp. 1–2).
- `plot_tradeoff`: system means on two measures (accuracy vs diversity).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib

if "ipykernel" not in __import__("sys").modules:  # headless by default; leave notebook backends alone
    matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from recdiv.data.textio import atomic_write


def _axes(ax, figsize=(5.0, 3.6)):
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def _save(fig: Figure, path) -> Figure:
    if path is not None:

        with atomic_write(Path(path), "wb") as fh:
            fig.savefig(fh, format="png", dpi=120)
    return fig


def plot_pvalue_curves(curves: Mapping[str, np.ndarray], alpha: float | None = 0.05, *, title: str | None = None,
                       ylabel: str = "p-value", path=None, ax=None) -> Figure:
    """One line per measure: its pairwise p-values (or ASLs) sorted decreasingly against the pair rank."""
    fig, ax = _axes(ax)
    for name, p in curves.items():
        p = np.sort(np.asarray(p, dtype=np.float64))[::-1]
        ax.plot(np.arange(1, len(p) + 1), p, label=str(name), lw=1.5)
    if alpha is not None:
        ax.axhline(alpha, color="grey", ls="--", lw=0.8)
    ax.set_xlabel("system pair (sorted by p-value)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1)
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small")
    return _save(fig, path)


def plot_robustness(levels, curves: Mapping[str, np.ndarray], *, xlabel: str = "fraction of test ratings kept",
                    invert_x: bool = True, title: str | None = None, path=None, ax=None) -> Figure:
    """Mean Kendall τ_b per degradation level, one line per measure/cutoff."""
    fig, ax = _axes(ax)
    levels = np.asarray(levels, dtype=np.float64)
    for name, tau in curves.items():
        ax.plot(levels, np.asarray(tau, dtype=np.float64), marker="o", ms=3, lw=1.2, label=str(name))
    if invert_x:
        ax.invert_xaxis()
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Kendall τ_b vs full test set")
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small")
    return _save(fig, path)


def plot_perturbation(levels, curves: Mapping[str, np.ndarray], *, ylabel: str = "value", log_y: bool = False,
                      title: str | None = None, path=None, ax=None) -> Figure:
    """A quantity (mean metric value, correlation, p-value) against the perturbation level s."""
    fig, ax = _axes(ax)
    for name, v in curves.items():
        ax.plot(np.asarray(levels), np.asarray(v, dtype=np.float64), marker=".", lw=1.2, label=str(name))
    ax.set_xlabel("perturbation level s")
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    ax.legend(fontsize="small")
    return _save(fig, path)


def plot_tradeoff(points: Mapping[str, tuple[float, float]], x_measure: str, y_measure: str, *,
                  title: str | None = None, path=None, ax=None) -> Figure:
    """Scatter of systems at (mean x_measure, mean y_measure), labelled by name."""
    fig, ax = _axes(ax)
    for name, (x, y) in points.items():
        ax.scatter([x], [y], s=22)
        ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(4, 3), fontsize="small")
    ax.set_xlabel(x_measure)
    ax.set_ylabel(y_measure)
    if title:
        ax.set_title(title)
    return _save(fig, path)


def close(fig: Figure) -> None:
    """Release a figure made with pyplot (figures made here are not registered with pyplot)."""
    plt.close(fig)
