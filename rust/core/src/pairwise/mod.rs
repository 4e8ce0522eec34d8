//! Pairwise ranking: the preference pairs `P = {(i, j) : q_i = q_j, y_i > y_j}` ([`pairs`])
//! and the pairwise squared hinge loss over them, without listing the pairs
//! ([`squared_hinge`]).

pub mod pairs;
pub mod squared_hinge;
