//! Data: query grouping and per-query centring ([`groups`]), the LETOR / SVMlight reader
//! ([`letor`]).

pub mod groups;
pub mod letor;
