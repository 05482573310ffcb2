from rilai_desktop.paths import REPO_ROOT
from rilai_desktop.ui.resources import RESOURCES_DIR


def test_the_window_finds_the_same_resources_folder_as_paths() -> None:
    assert (REPO_ROOT / "resources").resolve() == RESOURCES_DIR
    assert (RESOURCES_DIR / "style" / "light.qss").is_file()
