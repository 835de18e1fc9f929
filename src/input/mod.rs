//! Input: opening paths and stdin, and the parallel game pipeline that reads games on one
//! thread, works on them on several, and hands the results back in input order.

pub mod decode;
pub mod open;
pub mod pipeline;
pub mod progress;
