"""``--n-jobs 0`` is refused by the option itself, before the data are read, naming the option."""

import pytest

from rankcore.cli import main


@pytest.mark.parametrize("command", ["fit", "auto"])
def test_n_jobs_zero_names_the_option_before_reading_the_data(tmp_path, capsys, command):
    # it was read, a fit started, and "n_jobs: expected None, ..." came from the estimator
    data = tmp_path / "data.csv"
    data.write_text("a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(40)))
    argv = [command, str(data), "--label", "y", "--n-jobs", "0", "--out", str(tmp_path / "m.json")]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out, err = capsys.readouterr()
    assert stop.value.code == 2
    assert "argument --n-jobs: expected an integer other than 0" in err and "got '0'" in err
    assert out == "" and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("value, expected", [("-1", -1), ("3", 3), ("-2", -2)])
def test_n_jobs_takes_every_nonzero_integer(value, expected):
    from rankcore.cli._common import thread_count

    assert thread_count(value) == expected


@pytest.mark.parametrize("command", ["fit", "auto"])
def test_n_jobs_help_says_what_negative_counts_mean(capsys, command):
    # the help said "threads (default: every core)": -1 and -2 were explained only by the refusal of 0
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "-1 every core, -2 all but one (not 0; default: every core)" in help_text
