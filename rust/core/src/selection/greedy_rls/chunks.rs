//! Query-aligned row chunks of the greedy caches ([`super::GreedyState`]): fixed by the
//! offsets alone, so a pass parallel over chunks gives the same bits for any number of threads.

/// Target number of rows per chunk (whole queries; a longer query is a chunk of its own).
pub const CHUNK_ROWS: usize = 2048;

/// Query-aligned row chunks, fixed by the offsets alone.
pub(super) struct Chunks {
    /// Row starts, length `n_chunks + 1`.
    pub(super) rows: Vec<usize>,
    /// Query index starts, length `n_chunks + 1`.
    pub(super) queries: Vec<usize>,
}

impl Chunks {
    pub(super) fn new(offsets: &[usize]) -> Self {
        let nq = offsets.len() - 1;
        let (mut rows, mut queries) = (vec![0], vec![0]);
        for q in 0..nq {
            if offsets[q + 1] - rows[rows.len() - 1] >= CHUNK_ROWS || q + 1 == nq {
                rows.push(offsets[q + 1]);
                queries.push(q + 1);
            }
        }
        Chunks { rows, queries }
    }

    pub(super) fn len(&self) -> usize {
        self.rows.len() - 1
    }

    /// `v` (chunk-major, n values per row) cut into one mutable block per chunk.
    pub(super) fn split<'a>(&self, mut v: &'a mut [f64], n: usize) -> Vec<&'a mut [f64]> {
        let mut out = Vec::with_capacity(self.len());
        for k in 0..self.len() {
            let (head, tail) = v.split_at_mut(n * (self.rows[k + 1] - self.rows[k]));
            out.push(head);
            v = tail;
        }
        out
    }
}
