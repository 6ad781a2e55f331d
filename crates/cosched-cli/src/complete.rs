//! `cosched complete FILE`: complete a sparse matrix given as `row,col,value`
//! lines (an empty value marks a cell to predict) with the Bayesian
//! factorization machine (`cosched_core::learn::complete_bayes`:
//! each prediction with its posterior standard deviation), or with `--model
//! sgd` the self-tuning SGD FM (SLITS §3.3; `cosched_core::learn::complete`).
//! `cosched probe` and SLITS's warm start complete with the Bayesian FM too.

use crate::opts::Format;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_core::learn::{complete, complete_bayes, BfmParams, Completion};
use cosched_core::num::fixed;
use serde::Serialize;
use std::collections::HashMap;

#[derive(ClapArgs)]
pub struct Args {
    /// CSV of `row,col,value` lines (header `row,col,value` optional); ids are any text; an empty value marks a cell to predict.
    file: String,
    /// Seed of the sampler (bayes), or of the validation split, the FM's initialisation and its SGD order (sgd).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The model: `bayes` (Bayesian FM by Gibbs sampling, with a std per prediction) or `sgd`
    /// (the self-tuning SGD FM with validation).
    #[arg(long, default_value = "bayes")]
    model: String,
    /// Rank of the Bayesian FM (1 to 64).
    #[arg(long, default_value_t = BfmParams::default().k)]
    rank: usize,
    /// Gibbs iterations of the Bayesian FM (a quarter of them burn-in; 4 to 100,000).
    #[arg(long, default_value_t = BfmParams::default().iterations)]
    iterations: usize,
    /// Output format of the predictions (`table` prints CSV too).
    #[arg(long, value_enum, default_value = "csv")]
    format: Format,
    /// Also write the fitted model (ids, standardisation, biases, FM weights) as JSON here (`--model sgd` only:
    /// the Bayesian FM's prediction is an average over samples, not one model).
    #[arg(long)]
    model_out: Option<String>,
}

/// The parsed file: row ids, column ids, observed cells, cells to predict.
struct Input {
    rows: Vec<String>,
    cols: Vec<String>,
    observed: Vec<(usize, usize, f64)>,
    wanted: Vec<(usize, usize)>,
}

fn id(ids: &mut Vec<String>, at: &mut HashMap<String, usize>, s: &str) -> usize {
    *at.entry(s.to_string()).or_insert_with(|| {
        ids.push(s.to_string());
        ids.len() - 1
    })
}

fn parse(file: &str, text: &str) -> Result<Input, String> {
    let mut inp = Input { rows: vec![], cols: vec![], observed: vec![], wanted: vec![] };
    let (mut ra, mut ca) = (HashMap::new(), HashMap::new());
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 3 {
            return Err(format!("{file}:{n}: expected 3 fields row,col,value, found {}", f.len()));
        }
        if n == 1 && f[0].eq_ignore_ascii_case("row") && f[1].eq_ignore_ascii_case("col") {
            continue;
        }
        if f[0].is_empty() || f[1].is_empty() {
            return Err(format!("{file}:{n}: row and col ids must not be empty"));
        }
        let (r, c) = (id(&mut inp.rows, &mut ra, f[0]), id(&mut inp.cols, &mut ca, f[1]));
        if f[2].is_empty() {
            inp.wanted.push((r, c));
            continue;
        }
        let v: f64 = f[2]
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("{file}:{n}: value: `{}` is not a finite number", f[2]))?;
        inp.observed.push((r, c, v));
    }
    if inp.observed.is_empty() {
        return Err(format!("{file}: no observed values (every line's value is empty)"));
    }
    Ok(inp)
}

#[derive(Serialize)]
struct Cell<'a> {
    row: &'a str,
    col: &'a str,
    value: f64,
    /// Posterior standard deviation (the Bayesian FM); `None` for the SGD FM.
    std: Option<f64>,
}

#[derive(Serialize)]
struct Model<'a> {
    rows: &'a [String],
    cols: &'a [String],
    completion: &'a Completion,
}

pub fn run(a: Args) -> Result<(), String> {
    crate::output::check_out_file("--model-out", a.model_out.as_deref().map(std::path::Path::new))?;
    let bayes = match a.model.as_str() {
        "bayes" => Some(BfmParams::checked(a.rank, a.iterations).one_line()?),
        "sgd" => None,
        m => return Err(format!("--model: expected bayes or sgd, got `{m}`")),
    };
    if bayes.is_some() && a.model_out.is_some() {
        return Err("--model-out: only with --model sgd (the Bayesian FM predicts by averaging samples, it keeps no single model)".into());
    }
    let text = crate::input::read_text(&a.file)?;
    let inp = parse(&a.file, &text)?;
    if inp.wanted.is_empty() && a.model_out.is_none() {
        return Err(format!(
            "{}: no cell to predict: mark one with an empty value (`row,col,`), or keep the fitted model with --model sgd --model-out FILE",
            a.file
        ));
    }
    let Some(p) = bayes else { return run_sgd(&a, &inp) };
    let c = complete_bayes(&inp.observed, inp.rows.len(), inp.cols.len(), &inp.wanted, &p, a.seed)
        .map_err(|e| format!("{}: {e}", a.file))?;
    eprintln!("{}: model: {}", a.file, c.chosen);
    let cells: Vec<Cell> = inp
        .wanted
        .iter()
        .zip(&c.predictions)
        .map(|(&(r, col), &(value, std))| Cell { row: &inp.rows[r], col: &inp.cols[col], value, std: Some(std) })
        .collect();
    print_cells(&cells, &serde_json::json!({ "predictions": cells, "chosen": c.chosen }), a.format)
}

fn print_cells(cells: &[Cell], json: &serde_json::Value, format: Format) -> Result<(), String> {
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(json).map_err(|e| e.to_string())?),
        Format::Csv | Format::Table => {
            println!("row,col,value,std");
            for x in cells {
                let std = x.std.map(cosched_core::num::shortest).unwrap_or_default();
                println!("{},{},{},{std}", x.row, x.col, cosched_core::num::shortest(x.value));
            }
        }
    }
    Ok(())
}

/// `--model sgd`: the self-tuning SGD FM with its validation report.
fn run_sgd(a: &Args, inp: &Input) -> Result<(), String> {
    let c = complete(&inp.observed, inp.rows.len(), inp.cols.len(), a.seed).map_err(|e| format!("{}: {e}", a.file))?;
    let v = &c.validation;
    let chosen = &c.chosen;
    if v.held_out == 0 {
        eprintln!("{}: model: {chosen}", a.file);
    } else {
        eprintln!(
            "{}: validation RMSE on {} held-out cells: chosen {chosen} {}; global mean {}; row + column means {}; best FM {}",
            a.file,
            v.held_out,
            fixed(v.chosen, 6),
            fixed(v.global_mean, 6),
            fixed(v.row_col_means, 6),
            fixed(v.best_fm, 6)
        );
    }
    if let Some(path) = &a.model_out {
        let m = Model { rows: &inp.rows, cols: &inp.cols, completion: &c };
        let s = serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?;
        crate::output::write_whole(std::path::Path::new(path), &(s + "\n"))?;
    }
    let cells: Vec<Cell> = inp
        .wanted
        .iter()
        .map(|&(r, col)| Cell { row: &inp.rows[r], col: &inp.cols[col], value: c.predict(r, col), std: None })
        .collect();
    print_cells(
        &cells,
        &serde_json::json!({ "predictions": cells, "chosen": c.chosen, "validation": c.validation }),
        a.format,
    )
}
