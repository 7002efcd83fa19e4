//! A binary's size by section (`size -A`, from binutils): what a cold start maps and may fault
//! in. Code and read-only data are paged in from the file as they are touched; the relocated
//! data (pointers the dynamic loader rewrites at start, `.data.rel.ro` and the GOT) is copied
//! page by page as the loader writes it, one relocation entry (`.rela.dyn`, 24 bytes) at a time.

use std::path::Path;

/// Bytes by kind of section.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sections {
    pub(crate) text: u64,
    pub(crate) rodata: u64,
    /// Written by the loader at start: `.data.rel.ro`, `.got`, `.init_array`, `.fini_array`.
    pub(crate) relocated: u64,
    /// Unwinding tables, read only when a backtrace or an unwind needs them.
    pub(crate) unwind: u64,
    /// Entries of `.rela.dyn`: what the loader applies before `main`.
    pub(crate) relocations: u64,
}

impl Sections {
    /// Parsed from `size -A`'s output: one `name size address` line per section.
    pub(crate) fn of_size_output(text: &str) -> Self {
        let mut s = Self::default();
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let (Some(name), Some(Ok(bytes))) = (words.next(), words.next().map(str::parse::<u64>))
            else {
                continue;
            };
            match name {
                ".text" => s.text += bytes,
                ".rodata" => s.rodata += bytes,
                ".data.rel.ro" | ".got" | ".init_array" | ".fini_array" => s.relocated += bytes,
                ".eh_frame" | ".eh_frame_hdr" | ".gcc_except_table" => s.unwind += bytes,
                ".rela.dyn" => s.relocations += bytes / 24,
                _ => {}
            }
        }
        s
    }

    /// `binary`'s, or `None` where `size` cannot read it.
    pub(crate) fn of(binary: &Path) -> Option<Self> {
        let out = std::process::Command::new("size")
            .arg("-A")
            .arg(binary)
            .output()
            .ok()
            .filter(|out| out.status.success())?;
        Some(Self::of_size_output(&String::from_utf8_lossy(&out.stdout)))
    }

    /// `text / rodata / relocated KB, relocations`.
    pub(crate) fn cell(&self) -> String {
        let kb = |bytes: u64| bytes.div_ceil(1024);
        format!(
            "{} / {} / {} KB, {}",
            kb(self.text),
            kb(self.rodata),
            kb(self.relocated),
            self.relocations
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_grouped_by_what_a_start_does_with_them() {
        let output = "\
target/release/get-customer  :
section                 size      addr
.rela.dyn             293472      5728
.rodata               672421    303104
.eh_frame_hdr          54668    980888
.eh_frame             335944   1035560
.text                3060155   1375616
.data.rel.ro          198456   4440160
.got                    1624   4639080
.data                  17072   4644840
Total                4645945
";
        let s = Sections::of_size_output(output);
        assert_eq!(s.text, 3_060_155);
        assert_eq!(s.rodata, 672_421);
        assert_eq!(s.relocated, 198_456 + 1_624);
        assert_eq!(s.unwind, 54_668 + 335_944);
        assert_eq!(s.relocations, 12_228);
        assert_eq!(s.cell(), "2989 / 657 / 196 KB, 12228");
    }
}
