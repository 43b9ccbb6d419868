"""One scale for runs that answered different questions: an item-response model (docs/methods.md,
"Common scale").

P(run r right on question j) = 1 / (1 + exp(-a_j (theta_r - b_j))): theta_r the run's ability,
b_j the question's difficulty, a_j its discrimination (1 for every question in the Rasch model,
estimated in the 2PL). Fitted on every run's answers with the questions a run did not answer left
missing (never wrong), by penalised joint maximum likelihood (scipy.optimize L-BFGS-B with the
analytic gradient): a normal ridge prior N(0, PRIOR_SD^2) on abilities and difficulties and
N(0, LOG_A_SD^2) on log discriminations, which identifies the scale and keeps perfect and zero
scores finite (the maximum a posteriori estimate; Wright & Masters 1982 for joint estimation,
Bock & Aitkin 1981 / Baker & Kim 2004 for the model). The 2PL is chosen over the Rasch model
only when its BIC (Schwarz 1978; parameters counted: one more per question, observations: the
answers) is lower.

Each run's ability has a Wald interval from its information given the questions
(sum a^2 P (1 - P) plus the prior's precision). Its whole-set accuracy is what it would have
scored on every question of the fit: its credit on the questions it answered plus, on the
others, the model's chance of a right answer at its ability; the interval is the prediction
interval of that score: the binomial variance of the unanswered questions plus the ability's
uncertainty through the delta method. A run that answered everything gets its accuracy, exactly.

Item fit: each question's outfit (Wright & Masters 1982), the mean of squared standardised
residuals over the runs that answered it; sum of squares against chi-square on n degrees of
freedom, Holm across questions: a question whose Holm p < 0.05 misfits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from .. import stats

Model = Literal["rasch", "2pl"]
Choice = Literal["auto", "rasch", "2pl"]
PRIOR_SD = 3.0  # abilities and difficulties, in logits
LOG_A_SD = 0.5  # log discrimination (2PL)
Z95 = 1.959963984540054
Floats = npt.NDArray[np.float64]


@dataclass
class Scale:
    model: Model
    difficulty: Floats  # (J,) b_j
    discrimination: Floats  # (J,) a_j (ones for Rasch)
    ability: Floats  # (R,) theta_r
    ability_se: Floats  # (R,)
    bic: dict[str, float]  # model -> BIC of its fit ("2pl" absent when not tried)
    outfit: Floats  # (J,) outfit mean square, NaN where fewer than 2 runs answered
    fit_p: Floats  # (J,) Holm-adjusted p of the item-fit test, NaN where untested

    @property
    def misfit(self) -> npt.NDArray[np.bool_]:
        """Questions whose Holm-adjusted fit p is below 0.05."""
        return np.nan_to_num(self.fit_p, nan=1.0) < 0.05

    def prob(self, theta: Floats) -> Floats:
        """(len(theta), J) chance of a right answer."""
        return _sigmoid(self.discrimination[None, :] * (np.asarray(theta)[:, None] - self.difficulty[None, :]))


def _sigmoid(x: Floats) -> Floats:
    out: Floats = 0.5 * (1.0 + np.tanh(0.5 * x))  # no overflow warning for large |x|
    return out


def _objective(x: Floats, y: Floats, seen: Floats, R: int, J: int, two: bool) -> tuple[float, Floats]:
    theta, b = x[:R], x[R:R + J]
    loga = x[R + J:] if two else np.zeros(J)
    a = np.exp(loga)
    eta = a[None, :] * (theta[:, None] - b[None, :])
    loglik = float((seen * (y * eta - np.logaddexp(0.0, eta))).sum())
    resid = seen * (y - _sigmoid(eta))  # d loglik / d eta
    penalty = (theta @ theta + b @ b) / (2 * PRIOR_SD ** 2) + (loga @ loga) / (2 * LOG_A_SD ** 2)
    g_theta = (resid * a[None, :]).sum(axis=1) - theta / PRIOR_SD ** 2
    g_b = -(resid * a[None, :]).sum(axis=0) - b / PRIOR_SD ** 2
    parts = [g_theta, g_b]
    if two:
        parts.append((resid * eta).sum(axis=0) - loga / LOG_A_SD ** 2)  # d eta / d log a = eta
    return float(penalty - loglik), -np.concatenate(parts)


def _fit_one(y: Floats, seen: Floats, two: bool, start: Floats | None = None) -> tuple[Floats, float]:
    from scipy.optimize import minimize

    R, J = y.shape
    x0 = np.zeros(R + J + (J if two else 0)) if start is None else start
    res = minimize(_objective, x0, args=(y, seen, R, J, two), jac=True, method="L-BFGS-B",
                   options={"maxiter": 2000, "gtol": 1e-8})
    x = res.x
    a = np.exp(x[R + J:]) if two else np.ones(J)
    eta = a[None, :] * (x[:R, None] - x[None, R:R + J])
    loglik = float((seen * (y * eta - np.logaddexp(0.0, eta))).sum())
    return x, loglik


def fit(credit: npt.ArrayLike, asked: npt.ArrayLike, model: Choice = "auto") -> Scale:
    """The model fitted on `credit` ((R, J), 0..1; a tied majority's 1/t as a fractional
    answer) where `asked` ((R, J) bool) is True; unasked cells are missing."""
    seen = np.asarray(asked, dtype=bool).astype(np.float64)
    y = np.where(seen > 0, np.asarray(credit, dtype=np.float64), 0.0)
    R, J = y.shape
    x1, ll1 = _fit_one(y, seen, False)
    n_obs = max(float(seen.sum()), 1.0)
    bic = {"rasch": -2 * ll1 + (R + J) * np.log(n_obs)}
    chosen: Model = "rasch"
    x = x1
    if model != "rasch" and R >= 3:
        x2, ll2 = _fit_one(y, seen, True, np.concatenate([x1, np.zeros(J)]))
        bic["2pl"] = -2 * ll2 + (R + 2 * J) * np.log(n_obs)
        if model == "2pl" or bic["2pl"] < bic["rasch"]:
            chosen, x = "2pl", x2
    a = np.exp(x[R + J:]) if chosen == "2pl" else np.ones(J)
    scale = Scale(chosen, x[R:R + J].copy(), a, x[:R].copy(), np.zeros(R), {k: float(v) for k, v in bic.items()},
                  np.full(J, np.nan), np.full(J, np.nan))
    p = scale.prob(scale.ability)
    info = (seen * a[None, :] ** 2 * p * (1 - p)).sum(axis=1) + 1 / PRIOR_SD ** 2
    scale.ability_se = 1 / np.sqrt(info)
    scale.outfit, scale.fit_p = _item_fit(y, seen, p)
    return scale


def _item_fit(y: Floats, seen: Floats, p: Floats) -> tuple[Floats, Floats]:
    """Outfit mean square per question and its Holm-adjusted chi-square p."""
    from scipy.stats import chi2

    with np.errstate(invalid="ignore", divide="ignore"):
        z2 = seen * (y - p) ** 2 / (p * (1 - p))
    n = seen.sum(axis=0)
    total = z2.sum(axis=0)
    tested = n >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        outfit = np.where(tested, total / np.maximum(n, 1), np.nan)
    raw = np.where(tested, chi2.sf(total, np.maximum(n, 1)), np.nan)
    adjusted = np.full(len(n), np.nan)
    if tested.any():
        adjusted[tested] = stats.holm(raw[tested])
    return outfit, adjusted


def abilities(scale: Scale, credit: npt.ArrayLike, asked: npt.ArrayLike,
              weights: npt.ArrayLike | None = None, iterations: int = 30) -> tuple[Floats, Floats]:
    """Abilities (and their SEs) of runs scored against the fitted questions held fixed (Newton
    on the same penalised likelihood). credit, asked: (..., J); weights: (..., J) how often each
    question counts (a bootstrap resample), 1 by default. Returns arrays of shape (...)."""
    seen = np.asarray(asked, dtype=np.float64)
    if weights is not None:
        seen = seen * np.asarray(weights, dtype=np.float64)
    y = np.asarray(credit, dtype=np.float64)
    a, b = scale.discrimination, scale.difficulty
    theta = np.zeros(seen.shape[:-1])
    for _ in range(iterations):
        p = _sigmoid(a * (theta[..., None] - b))
        grad = (seen * a * (y - p)).sum(axis=-1) - theta / PRIOR_SD ** 2
        hess = (seen * a ** 2 * p * (1 - p)).sum(axis=-1) + 1 / PRIOR_SD ** 2
        step = np.clip(grad / hess, -2.0, 2.0)
        theta = theta + step
        if np.all(np.abs(step) < 1e-10):
            break
    p = _sigmoid(a * (theta[..., None] - b))
    hess = (seen * a ** 2 * p * (1 - p)).sum(axis=-1) + 1 / PRIOR_SD ** 2
    return theta, 1 / np.sqrt(hess)


@dataclass(frozen=True)
class WholeSet:
    accuracy: Floats  # (R,) expected accuracy on every question of the fit
    low: Floats  # 95 % prediction interval
    high: Floats


def whole_set(scale: Scale, credit: npt.ArrayLike, asked: npt.ArrayLike, theta: Floats, se: Floats,
              columns: npt.ArrayLike | None = None) -> WholeSet:
    """Each run's accuracy on the questions `columns` (default: all J) had it answered them all:
    its credit where it answered, the model's chance elsewhere; 95 % prediction interval
    (binomial variance of the unanswered + delta-method ability variance, normal)."""
    J = len(scale.difficulty)
    cols = np.arange(J) if columns is None else np.asarray(columns, dtype=np.int64)
    seen = np.asarray(asked, dtype=bool)[:, cols]
    y = np.asarray(credit, dtype=np.float64)[:, cols]
    a = scale.discrimination[cols]
    p = _sigmoid(a[None, :] * (theta[:, None] - scale.difficulty[cols][None, :]))
    rest = ~seen
    n = len(cols)
    score = np.where(seen, y, 0.0).sum(axis=1) + np.where(rest, p, 0.0).sum(axis=1)
    slope = np.where(rest, a[None, :] * p * (1 - p), 0.0).sum(axis=1)
    var = np.where(rest, p * (1 - p), 0.0).sum(axis=1) + (slope * se) ** 2
    half = Z95 * np.sqrt(var)
    floor = np.where(seen, y, 0.0).sum(axis=1)
    ceiling = floor + rest.sum(axis=1)
    return WholeSet(score / n, np.maximum(score - half, floor) / n, np.minimum(score + half, ceiling) / n)


def information(scale: Scale, theta: Floats) -> Floats:
    """(len(theta), J) Fisher information of each question at each ability: a^2 P (1 - P)."""
    p = scale.prob(theta)
    out: Floats = scale.discrimination[None, :] ** 2 * p * (1 - p)
    return out


def anchors(scale: Scale, uids: list[str], n: int, theta: Floats | None = None) -> list[str]:
    """The n questions with the most information summed over the abilities the runs span (the
    fitted abilities by default), ties by uid: the anchors a new run is asked."""
    at = scale.ability if theta is None else np.asarray(theta, dtype=np.float64)
    total = information(scale, at).sum(axis=0)
    order = sorted(range(len(uids)), key=lambda j: (-round(float(total[j]), 12), uids[j]))
    return [uids[j] for j in order[:n]]

