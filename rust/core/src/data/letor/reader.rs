//! Reading: a file, pipe or device in blocks that end at a newline, on a helper thread,
//! gzip members decoded as they are read.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use memchr::memrchr2;

use super::mem::advise_huge;
use super::BLOCK_BYTES;
use crate::error::{Error, Result};

pub(super) enum Msg {
    Block(Vec<u8>, usize),
    Done,
    Failed(Error),
}

/// Body of the reader thread: opens the file, sends blocks until the end or an error, and
/// stops early when the parser hangs up (after an error or an interrupt).
pub(super) fn reader_thread(
    path: PathBuf,
    max_memory: Option<u64>,
    tx: mpsc::SyncSender<Msg>,
    back: mpsc::Receiver<Vec<u8>>,
) {
    let mut r = match BlockReader::open(&path, max_memory) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Msg::Failed(e));
            return;
        }
    };
    loop {
        let buf = back.try_recv().unwrap_or_default();
        let msg = match r.next_block(buf) {
            Ok(Some((block, n))) => Msg::Block(block, n),
            Ok(None) => Msg::Done,
            Err(e) => Msg::Failed(e),
        };
        let last = !matches!(msg, Msg::Block(..));
        if tx.send(msg).is_err() || last {
            return;
        }
    }
}

pub(super) fn io_error(path: &Path, e: io::Error) -> Error {
    Error::Io(io::Error::new(e.kind(), format!("{}: {}", path.display(), e)))
}

/// Reads a file in blocks that end just after a newline (a line longer than a block makes
/// the block grow, within the memory limit).
pub(super) struct BlockReader {
    src: Box<dyn Read + Send>,
    path: PathBuf,
    gzip: bool,
    max_memory: Option<u64>,
    /// The partial last line of the previous block.
    carry: Vec<u8>,
    eof: bool,
    /// Bytes read per block.
    pub(super) block: usize,
}

impl BlockReader {
    pub(super) fn open(path: &Path, max_memory: Option<u64>) -> Result<BlockReader> {
        let mut file = File::open(path).map_err(|e| io_error(path, e))?;
        let meta = file.metadata().map_err(|e| io_error(path, e))?;
        if meta.is_dir() {
            return Err(io_error(path, io::Error::other("is a directory")));
        }
        // Peek at the first two bytes (short reads happen on pipes).
        let mut magic = [0u8; 2];
        let mut got = 0;
        while got < 2 {
            match file.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error(path, e)),
            }
        }
        let head = io::Cursor::new(magic[..got].to_vec()).chain(file);
        let gzip = magic[..got] == [0x1f, 0x8b];
        let src: Box<dyn Read + Send> =
            if gzip { Box::new(GzMembers::new(BufReader::with_capacity(1 << 20, head))) } else { Box::new(head) };
        Ok(BlockReader {
            src,
            path: path.to_path_buf(),
            gzip,
            max_memory,
            carry: Vec::new(),
            eof: false,
            block: BLOCK_BYTES,
        })
    }

    /// The next block in `buf` (reused): `Some((buf, n))` with the block in `buf[..n]`, or
    /// `None` at the end of the file.
    pub(super) fn next_block(&mut self, mut buf: Vec<u8>) -> Result<Option<(Vec<u8>, usize)>> {
        if self.eof && self.carry.is_empty() {
            return Ok(None);
        }
        let want = self.carry.len() + self.block;
        if buf.len() < want {
            self.grow(&mut buf, want, false)?;
        }
        let mut len = self.carry.len();
        buf[..len].copy_from_slice(&self.carry);
        self.carry.clear();
        loop {
            while len < buf.len() && !self.eof {
                match self.src.read(&mut buf[len..]) {
                    Ok(0) => self.eof = true,
                    Ok(k) => len += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(self.read_error(e)),
                }
            }
            if self.eof {
                return Ok(if len == 0 { None } else { Some((buf, len)) });
            }
            // The last line end: a `\n`, or a lone `\r` (one whose next byte is read and is
            // not `\n`; a `\r` as the last byte read waits for the next one).
            let last = if buf[len - 1] == b'\n' {
                Some(len - 1)
            } else {
                memrchr2(b'\n', b'\r', &buf[..len - 1]).map(|i| if buf[i + 1] == b'\n' { i + 1 } else { i })
            };
            if let Some(i) = last {
                self.carry.extend_from_slice(&buf[i + 1..len]);
                return Ok(Some((buf, i + 1)));
            }
            // One line fills the whole block: read on in a larger one.
            let bigger = buf.len().saturating_mul(2);
            self.grow(&mut buf, bigger, true)?;
        }
    }

    /// Grows `buf` to `len` bytes; `long_line`: for a line longer than a block, which the
    /// memory rule bounds (a block itself is a fixed cost).
    fn grow(&self, buf: &mut Vec<u8>, len: usize, long_line: bool) -> Result<()> {
        let max_memory = self.max_memory.unwrap_or(u64::MAX);
        let refuse = |how: &str| {
            Error::Memory {
            what: format!("a line longer than {} bytes", len / 2),
            bytes: len as u128,
            max_memory: max_memory as u128,
            remedy: format!(
                "{how}a LETOR line is one document; check that the file is a LETOR/SVMlight file with newline-separated rows"
            ),
        }
        };
        if long_line && len as u128 > max_memory as u128 {
            return Err(refuse(""));
        }
        buf.try_reserve_exact(len.saturating_sub(buf.len())).map_err(|_| refuse("the allocation failed; "))?;
        advise_huge(buf);
        buf.resize(len, 0);
        Ok(())
    }

    fn read_error(&self, e: io::Error) -> Error {
        if self.gzip {
            let kind = if e.kind() == io::ErrorKind::UnexpectedEof { e.kind() } else { io::ErrorKind::InvalidData };
            let msg = format!("{}: corrupt or truncated gzip data: {e}", self.path.display());
            Error::Io(io::Error::new(kind, msg))
        } else {
            io_error(&self.path, e)
        }
    }
}

/// A gzip stream of one or more members, decoded as it is read. As Python's `gzip` module,
/// it skips zero bytes after a member (padding written by some tools) and rejects any other
/// trailing data (flate2's `MultiGzDecoder` rejects the padding too).
struct GzMembers<R: BufRead> {
    dec: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: BufRead> GzMembers<R> {
    fn new(r: R) -> Self {
        GzMembers { dec: Some(flate2::bufread::GzDecoder::new(r)) }
    }
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(mut dec) = self.dec.take() else { return Ok(0) };
            let n = dec.read(out)?;
            if n > 0 || out.is_empty() {
                self.dec = Some(dec);
                return Ok(n);
            }
            // End of a member: skip zero padding, then either the end or another member.
            let mut r = dec.into_inner();
            loop {
                let avail = r.fill_buf()?;
                if avail.is_empty() {
                    return Ok(0);
                }
                let zeros = avail.iter().take_while(|&&b| b == 0).count();
                let more = zeros < avail.len();
                r.consume(zeros);
                if more {
                    break;
                }
            }
            self.dec = Some(flate2::bufread::GzDecoder::new(r));
        }
    }
}
