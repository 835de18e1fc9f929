//! Splitting a tree as lichess's opening explorer splits its games: by speed (the time
//! control's estimated duration) and by rating band (the average of both players' ratings).
//! A record and a row carry their split as one small number ([`Split`]).

/// How a run splits its rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SplitBy {
    /// By the game's speed ([`Speed`]).
    pub speed: bool,
    /// By the band of the players' average rating ([`BANDS`]).
    pub rating: bool,
}

/// A game's speed, as lichess names them, from its estimated duration: the base time plus 40
/// times the increment, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Speed {
    UltraBullet = 1,
    Bullet,
    Blitz,
    Rapid,
    Classical,
    /// `TimeControl "-"`: no clock.
    Correspondence,
}

impl Speed {
    const ALL: [Speed; 6] = [
        Speed::UltraBullet,
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
    ];

    /// The speed of a `TimeControl` tag (`300+3`, `5400`, `40/7200`, `-`); `None` when it is
    /// missing or not one of these forms.
    ///
    /// ```
    /// use pgnkit::tree::split::Speed;
    ///
    /// assert_eq!(Speed::of_tag(Some("180+2")), Some(Speed::Blitz)); // 180 + 40 * 2 = 260 s
    /// assert_eq!(Speed::of_tag(Some("60+0")), Some(Speed::Bullet));
    /// assert_eq!(Speed::of_tag(Some("-")), Some(Speed::Correspondence));
    /// assert_eq!(Speed::of_tag(Some("?")), None);
    /// ```
    pub fn of_tag(tag: Option<&str>) -> Option<Speed> {
        let tag = tag?.trim();
        if tag == "-" {
            return Some(Speed::Correspondence);
        }
        // The first period of a multi-period control (`40/7200:3600`).
        let first = tag.split(':').next()?;
        let time = first.rsplit('/').next()?;
        let (base, increment) = match time.split_once('+') {
            Some((b, i)) => (b.parse::<u64>().ok()?, i.parse::<u64>().ok()?),
            None => (time.parse::<u64>().ok()?, 0),
        };
        let estimate = base.saturating_add(increment.saturating_mul(40));
        Some(match estimate {
            0..29 => Speed::UltraBullet,
            29..179 => Speed::Bullet,
            179..479 => Speed::Blitz,
            479..1499 => Speed::Rapid,
            _ => Speed::Classical,
        })
    }

    /// Its name, as lichess writes it.
    pub fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The speed named `name`.
    pub fn named(name: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The rating bands, by their least average rating, as lichess's explorer groups games (a
/// game is in the greatest band its players' average reaches; below 1000, in band 0).
pub const BANDS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

/// The band of two ratings (0: not known): the index into [`BANDS`] plus 1, or 0 when either
/// rating is not known.
pub fn band_of(white: u16, black: u16) -> u8 {
    if white == 0 || black == 0 {
        return 0;
    }
    let average = (u32::from(white) + u32::from(black)) / 2;
    BANDS
        .iter()
        .rposition(|&least| average >= u32::from(least))
        .map_or(0, |i| i as u8 + 1)
}

/// A row's split: the speed (0: not split, or not known) times 16 plus the band (0: not split,
/// or not known).
pub type Split = u16;

/// The split of a game, as `by` asks.
pub fn split_of(by: SplitBy, time_control: Option<&str>, white: u16, black: u16) -> Split {
    let speed = if by.speed {
        Speed::of_tag(time_control).map_or(0, |s| s as u16)
    } else {
        0
    };
    let band = if by.rating {
        u16::from(band_of(white, black))
    } else {
        0
    };
    speed * 16 + band
}

/// A split's columns: the speed's name and the band's least rating, each `None` when not
/// split by it or not known.
pub fn columns(split: Split) -> (Option<&'static str>, Option<u16>) {
    let speed = Speed::ALL
        .into_iter()
        .find(|s| *s as u16 == split / 16)
        .map(Speed::name);
    let band = (split % 16)
        .checked_sub(1)
        .and_then(|i| BANDS.get(usize::from(i)).copied());
    (speed, band)
}

/// A split back from its columns.
///
/// # Errors
///
/// A speed that is none of lichess's names, or a rating that is no band.
pub fn from_columns(speed: Option<&str>, rating: Option<u16>) -> anyhow::Result<Split> {
    let speed = match speed.filter(|s| !s.is_empty()) {
        None => 0,
        Some(name) => {
            Speed::named(name).ok_or_else(|| anyhow::anyhow!("speed {name:?} is no speed"))? as u16
        }
    };
    let band = match rating {
        None => 0,
        Some(least) => {
            BANDS
                .iter()
                .position(|&b| b == least)
                .ok_or_else(|| anyhow::anyhow!("rating {least} is no band"))? as u16
                + 1
        }
    };
    Ok(speed * 16 + band)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_and_their_columns() {
        assert_eq!(band_of(2600, 2450), 9); // 2525
        assert_eq!(band_of(1500, 1550), 4); // 1525: the 1400 band
        assert_eq!(band_of(800, 900), 1); // below 1000
        assert_eq!(band_of(0, 2000), 0);
        let both = SplitBy {
            speed: true,
            rating: true,
        };
        let split = split_of(both, Some("600+5"), 1500, 1550);
        assert_eq!(columns(split), (Some("rapid"), Some(1400)));
        assert_eq!(from_columns(Some("rapid"), Some(1400)).unwrap(), split);
        assert_eq!(columns(0), (None, None));
        assert_eq!(Speed::of_tag(Some("40/7200:3600")), Some(Speed::Classical));
        assert_eq!(Speed::of_tag(Some("15+0")), Some(Speed::UltraBullet));
    }
}
