"""Charts and report builders: they draw frames computed by ``analysis``; they never compute."""
