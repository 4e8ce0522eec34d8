//! What to measure: [`Measure`], [`Convention`], [`Ties`], their names (parsed
//! case-insensitively) and the check of labels whose gain overflows.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::invalid;

/// Gain, discount and relevance conventions, each named by what it computes or whose
/// evaluation it equals; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Convention {
    /// `exponential` (alias `standard`, the old name): gain `2^r - 1` (Burges et al. 2005),
    /// discount `1/log2(i+1)`, k truncated to the query, relevant = `r > 0`, NDCG 0 for a
    /// query without relevant documents.
    #[default]
    Standard,
    /// `trec`: trec_eval's (pytrec_eval's `ndcg_cut_k`, `map`, `P_k`): linear gain `r`,
    /// discount `1/log2(i+1)`, relevant = `r >= 1` (trec_eval's relevance level 1), NDCG 0 for
    /// a query without relevant documents. trec_eval breaks score ties by document id in
    /// reverse lexical order: with ids decreasing in input order that is `Ties::Stable`.
    Trec,
    /// `lightgbm`: LightGBM's own `ndcg` metric (lambdarank's evaluation, `label_gain`
    /// `2^r - 1`): as `exponential`, but a query without relevant documents has NDCG 1.
    Lightgbm,
    /// LETOR 4.0's `Eval-Score-4.0.pl`: discount 1 at ranks 1-2 and `1/log2(i)` after,
    /// NDCG@k = 0 when the query has fewer than k documents, relevant = `r >= 1`.
    Letor,
}

/// How documents with equal scores are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ties {
    /// Input order (a stable sort by score, descending), as LETOR's script.
    #[default]
    Stable,
    /// Lower labels first among equal scores (the worst case for the ranker).
    Pessimistic,
}

/// What to measure. `k = None` means the whole query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Measure {
    Ndcg(Option<usize>),
    Precision(usize),
    AveragePrecision,
    MeanNdcg,
    Err(Option<usize>),
}

/// A metric: measure, convention and tie handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MetricSpec {
    pub measure: Measure,
    pub convention: Convention,
    pub ties: Ties,
}

impl MetricSpec {
    /// `measure` with the standard convention and stable ties.
    pub fn new(measure: Measure) -> Self {
        MetricSpec { measure, convention: Convention::Standard, ties: Ties::Stable }
    }

    /// `measure` with LETOR's conventions and stable ties (as `Eval-Score-4.0.pl`).
    pub fn letor(measure: Measure) -> Self {
        MetricSpec { measure, convention: Convention::Letor, ties: Ties::Stable }
    }

    pub fn with_convention(self, convention: Convention) -> Self {
        MetricSpec { convention, ..self }
    }

    pub fn with_ties(self, ties: Ties) -> Self {
        MetricSpec { ties, ..self }
    }

    /// Checks the cutoff: `k >= 1` when given.
    pub fn validate(&self) -> Result<()> {
        match self.measure {
            Measure::Ndcg(Some(0)) | Measure::Precision(0) | Measure::Err(Some(0)) => {
                invalid!("k must be >= 1 ({})", self.measure)
            }
            _ => Ok(()),
        }
    }
}

/// Labels from this value on are refused by the measures that use the gain `2^r - 1` (and
/// ERR's `2^max_grade`): below it, a sum of the gains of up to `2^63` documents stays below
/// `2^1023`, so a DCG can never overflow (2^r - 1 alone overflows from r = 1024, and the sum
/// of two gains from r = 1023).
pub const MAX_GAIN_LABEL: f64 = 960.0;

/// Refuses labels whose summed gains could overflow float64 for the measures that use the
/// gain (NDCG, MeanNDCG, ERR): their value would be NaN. `top` is the largest label (or ERR's
/// `max_grade`). The linear gain (`trec`) refuses labels from `2^960` on, for the same reason.
pub fn check_gain_labels(spec: &MetricSpec, top: f64) -> Result<()> {
    if !spec.measure.uses_gain() {
        return Ok(());
    }
    let linear = spec.convention == Convention::Trec && !matches!(spec.measure, Measure::Err(_));
    if linear && top >= MAX_GAIN_LABEL.exp2() {
        return invalid!(
            "{}: label {top} is too large for the linear gain: the summed gains could overflow float64; \
             use labels below 2^960",
            spec.measure
        );
    }
    if !linear && top >= MAX_GAIN_LABEL {
        return invalid!(
            "{}: label {top} is too large for the gain 2^r - 1: the summed gains overflow float64 \
             (2^r - 1 itself from r = 1024, a sum of two from r = 1023); use graded labels below {MAX_GAIN_LABEL} \
             (e.g. the rank of each label value)",
            spec.measure
        );
    }
    Ok(())
}

impl Measure {
    /// Whether the metric uses the gain `2^r - 1` of the labels.
    pub fn uses_gain(self) -> bool {
        matches!(self, Measure::Ndcg(_) | Measure::MeanNdcg | Measure::Err(_))
    }

    /// Whether the metric needs the ideal ranking (labels sorted descending).
    pub(super) fn needs_ideal(self) -> bool {
        matches!(self, Measure::Ndcg(_) | Measure::MeanNdcg)
    }
}

impl fmt::Display for Measure {
    /// `NDCG`, `NDCG@10`, `P@5`, `MAP`, `MeanNDCG`, `ERR`, `ERR@10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measure::Ndcg(None) => write!(f, "NDCG"),
            Measure::Ndcg(Some(k)) => write!(f, "NDCG@{k}"),
            Measure::Precision(k) => write!(f, "P@{k}"),
            Measure::AveragePrecision => write!(f, "MAP"),
            Measure::MeanNdcg => write!(f, "MeanNDCG"),
            Measure::Err(None) => write!(f, "ERR"),
            Measure::Err(Some(k)) => write!(f, "ERR@{k}"),
        }
    }
}

impl FromStr for Measure {
    type Err = Error;

    /// Case-insensitive: `ndcg`, `ndcg@10`, `p@5` / `precision@5`, `map` / `ap`,
    /// `meanndcg` / `mean_ndcg`, `err`, `err@10`.
    fn from_str(s: &str) -> Result<Measure> {
        let t = s.trim().to_ascii_lowercase();
        let (name, k) = match t.split_once('@') {
            Some((name, k)) => {
                let k: usize = match k.trim().parse() {
                    Ok(k) if k >= 1 => k,
                    _ => return invalid!("invalid metric {s:?}: the cutoff after '@' must be an integer >= 1"),
                };
                (name.trim().to_string(), Some(k))
            }
            None => (t.clone(), None),
        };
        match (name.as_str(), k) {
            ("ndcg", k) => Ok(Measure::Ndcg(k)),
            ("p" | "precision", Some(k)) => Ok(Measure::Precision(k)),
            ("map" | "ap", None) => Ok(Measure::AveragePrecision),
            ("meanndcg" | "mean_ndcg", None) => Ok(Measure::MeanNdcg),
            ("err", k) => Ok(Measure::Err(k)),
            ("p" | "precision", None) => invalid!("invalid metric {s:?}: precision needs a cutoff, e.g. 'p@10'"),
            _ => invalid!(
                "invalid metric {s:?}: expected one of ndcg, ndcg@K, p@K, precision@K, map, ap, meanndcg, err, err@K"
            ),
        }
    }
}

impl Convention {
    /// Every convention (the first is the default).
    pub const ALL: [Convention; 4] = [Convention::Standard, Convention::Trec, Convention::Lightgbm, Convention::Letor];

    /// Every accepted name, in the order the package lists them (the first is the default's
    /// old name, kept as an alias of `exponential`): the one list of convention names
    /// (`rankselect._core.CONVENTIONS`).
    pub const NAMES: [&'static str; 5] = ["standard", "exponential", "trec", "lightgbm", "letor"];

    /// The convention's name (`standard` is spelled `exponential`).
    pub fn name(self) -> &'static str {
        match self {
            Convention::Standard => "exponential",
            Convention::Trec => "trec",
            Convention::Lightgbm => "lightgbm",
            Convention::Letor => "letor",
        }
    }

    /// The gain of a label: `2^r - 1`, or `r` for `trec`.
    #[inline]
    pub fn gain(self, r: f64) -> f64 {
        match self {
            Convention::Trec => r,
            _ => r.exp2() - 1.0,
        }
    }
}

impl Ties {
    /// Every tie mode (the first is the default); the one list of tie-mode names
    /// (`rankselect._core.TIES`).
    pub const ALL: [Ties; 2] = [Ties::Stable, Ties::Pessimistic];

    /// The tie mode's name, as parsed by `FromStr`.
    pub fn name(self) -> &'static str {
        match self {
            Ties::Stable => "stable",
            Ties::Pessimistic => "pessimistic",
        }
    }
}

/// The value of `all` named `s` (trimmed, case-insensitive); else an error naming `what` and
/// the choices (`"convention must be 'standard' or 'letor', got ..."`).
fn by_name<T: Copy>(s: &str, what: &str, all: &[T], name: impl Fn(T) -> &'static str) -> Result<T> {
    let t = s.trim().to_ascii_lowercase();
    if let Some(v) = all.iter().copied().find(|v| name(*v) == t) {
        return Ok(v);
    }
    let names: Vec<String> = all.iter().map(|v| format!("'{}'", name(*v))).collect();
    invalid!("{what} must be {}, got {s:?}", names.join(" or "))
}

impl FromStr for Convention {
    type Err = Error;

    /// A name of [`Convention::NAMES`] (case-insensitive; `standard` is `exponential`).
    fn from_str(s: &str) -> Result<Convention> {
        if s.trim().eq_ignore_ascii_case("standard") {
            return Ok(Convention::Standard);
        }
        by_name(s, "convention", &Convention::ALL, Convention::name).map_err(|_| {
            let names: Vec<String> = Convention::NAMES.iter().map(|n| format!("'{n}'")).collect();
            Error::InvalidInput(format!("convention must be one of {}, got {s:?}", names.join(", ")))
        })
    }
}

impl FromStr for Ties {
    type Err = Error;

    /// A name of [`Ties::ALL`] (case-insensitive).
    fn from_str(s: &str) -> Result<Ties> {
        by_name(s, "ties", &Ties::ALL, Ties::name)
    }
}
