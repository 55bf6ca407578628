//! The raw loop on the runtime this framework uses, as the framework sets it up: a
//! multi-threaded Tokio runtime, served on a worker, standard input and output polled as
//! non-blocking pipes. One task reads a line, answers it with [`sum_raw::answer`] and writes
//! it: no routing, no tasks per request. What any server on this runtime pays at the least
//! (a wait in `epoll_wait` and the runtime's parking), the floor of the "ours" column.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe::OpenOptions;

fn main() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let serving = runtime.spawn(async {
        let input = OpenOptions::new().open_receiver("/proc/self/fd/0")?;
        let mut output = OpenOptions::new().open_sender("/proc/self/fd/1")?;
        let mut input = BufReader::with_capacity(64 * 1024, input);
        let mut line = String::new();
        let mut out = Vec::new();
        loop {
            line.clear();
            if input.read_line(&mut line).await? == 0 {
                return output.write_all(&out).await;
            }
            sum_raw::answer(&line, &mut out)?;
            if input.buffer().is_empty() {
                output.write_all(&out).await?;
                out.clear();
            }
        }
    });
    runtime.block_on(serving)?
}
