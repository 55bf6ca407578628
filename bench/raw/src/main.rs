//! A blocking loop over stdin: a line in, [`sum_raw::answer`], flush when no more input is
//! buffered. No framework, no runtime: the fastest a server on this pipe can be, the "raw"
//! column.

use std::io::{BufRead, BufReader, BufWriter, Write};

fn main() -> std::io::Result<()> {
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return output.flush();
        }
        sum_raw::answer(&line, &mut output)?;
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}
