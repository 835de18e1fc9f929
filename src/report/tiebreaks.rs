//! `standings.csv` ranked by a list of C.07 tie-breaks (`pgnkit stats --tiebreaks LIST`):
//! the player tables from each event's games as tie-breaks read them
//! ([`StatsAccumulator::for_each_event_tied`]), one column a tie-break after `points`; team
//! tables as without the option, or, with `--team-tiebreaks LIST`, by match points and that
//! list, in columns named `team:` and the tie-break after the players' ones.

use std::io::{self, Write};

use super::stats::{neutralise, number, CsvOptions, TableOptions};
use crate::stats::reports::TieTables;
use crate::stats::standings::EventKind;
use crate::stats::tiebreak::Ratio;
use crate::stats::StatsAccumulator;

/// A cell: text from the input (neutralised unless raw) or pgnkit's own.
fn cell(text: &str, input: bool, opts: CsvOptions) -> String {
    if input && !opts.raw {
        neutralise(text).into_owned()
    } else {
        text.to_owned()
    }
}

/// Writes `standings.csv` with the player tables ranked by points, then by `ties.list` in
/// order; with `ties.teams`, the team tables by match points, then by it. Returns the games
/// left out as casual online play (see [`StatsAccumulator::for_each_event`]). The
/// accumulator must keep what tie-breaks need ([`StatsAccumulator::keep_tie_facts`]).
///
/// # Errors
///
/// Errors of the underlying writer, and of the event log's store.
pub fn write_standings<W: Write>(
    out: &mut csv::Writer<W>,
    acc: &mut StatsAccumulator,
    ties: &TieTables<'_>,
    opts: &TableOptions,
) -> csv::Result<u64> {
    let list = &ties.list.0[..];
    let team_list = ties.teams.map_or(&[][..], |l| &l.0[..]);
    let mut header: Vec<String> = [
        "event", "site", "year", "table", "kind", "tiebreak", "place", "player", "games", "wins",
        "draws", "losses", "points",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(list.iter().map(ToString::to_string));
    header.extend(team_list.iter().map(|tb| format!("team:{tb}")));
    out.write_record(&header)?;
    let names: Vec<String> = list.iter().map(ToString::to_string).collect();
    let tiebreak = names.join(",");
    let team_names: Vec<String> = team_list.iter().map(ToString::to_string).collect();
    let team_tiebreak = format!("match points,{}", team_names.join(","));
    let csv = opts.csv;
    acc.for_each_event_tied(ties.moveless_played, |event, players| {
        let key = event.key;
        let kind = match event.detect_kind() {
            EventKind::RoundRobin => "round robin",
            EventKind::Swiss => "swiss",
        };
        let year = key.year.map(|y| y.to_string()).unwrap_or_default();
        let lead = |table: &str, tiebreak: &str| {
            vec![
                cell(key.event, true, csv),
                cell(key.site, true, csv),
                year.clone(),
                table.to_owned(),
                kind.to_owned(),
                tiebreak.to_owned(),
            ]
        };
        if let Some(players) = players {
            for row in players.results.rank(list) {
                let [games, wins, draws, losses] = players.games[row.player];
                if row.place.is_none() && games == 0 {
                    continue;
                }
                let mut record = lead("players", &tiebreak);
                record.push(row.place.map(|p| p.to_string()).unwrap_or_default());
                record.push(cell(&players.names[row.player].to_string(), true, csv));
                record.extend([games, wins, draws, losses].map(|n| n.to_string()));
                record.push(Ratio::new(row.half_points, 2).to_string());
                record.extend(row.values.iter().map(ToString::to_string));
                record.extend(std::iter::repeat_n(String::new(), team_list.len()));
                out.write_record(&record).map_err(io::Error::from)?;
            }
        }
        if !team_list.is_empty() {
            let teams = players.map(|p| p.teams.rank(team_list));
            for team in teams.into_iter().flatten() {
                let mut record = lead("teams", &team_tiebreak);
                record.push(team.place.map(|p| p.to_string()).unwrap_or_default());
                record.push(cell(&team.team, true, csv));
                record.extend(team.matches.map(|n| n.to_string()));
                record.push(team.match_points.to_string());
                record.extend(std::iter::repeat_n(String::new(), list.len()));
                record.extend(team.values.iter().map(ToString::to_string));
                out.write_record(&record).map_err(io::Error::from)?;
            }
            return Ok(());
        }
        for team in event.team_standings() {
            let mut record = lead("teams", "game points");
            record.push(team.place.map(|p| p.to_string()).unwrap_or_default());
            record.push(cell(&team.team, true, csv));
            record.push(team.games.to_string());
            record.extend(std::iter::repeat_n(String::new(), 3));
            record.push(number(team.points(), 1));
            record.extend(std::iter::repeat_n(String::new(), list.len()));
            out.write_record(&record).map_err(io::Error::from)?;
        }
        Ok(())
    })
    .map_err(csv::Error::from)
}
