"""File → Reading group…: join a group's shared folder under a name, or change what is shared, or leave."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from reader.group.records import GroupStatus

from ..widgets.folder_sync import FolderPicker

INTRO = ("Triage together through a folder your group already shares (Syncthing, Dropbox, a network "
         "drive, a git repository): no server, no account. Each member writes only their own sub-folder; "
         "everyone reads all of them.")


class GroupDialog(QDialog):
    """Join (folder, name, what to share) when in no group; else the options and Leave."""

    def __init__(self, parent: QWidget | None, status: GroupStatus | None) -> None:
        super().__init__(parent)
        self.setObjectName("groupDialog")
        self.setWindowTitle("Reading group")
        self.setAccessibleName("Reading group")
        self.joined = status is not None
        self.leave_requested = False
        layout = QVBoxLayout(self)
        intro = QLabel(INTRO, self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.picker = FolderPicker(self, title="The group's shared folder", edit_name="groupFolder",
                                   button_name="groupBrowse", accessible_name="Shared folder",
                                   placeholder="A folder every member syncs")
        self.folderEdit = self.picker.edit
        form.addRow("Shared folder:", self.picker)
        self.nameEdit = QLineEdit(self)
        self.nameEdit.setObjectName("groupName")
        self.nameEdit.setAccessibleName("Your name in the group")
        self.nameEdit.setPlaceholderText("e.g. ada")
        form.addRow("Your name:", self.nameEdit)
        self.shareNotes = QCheckBox("Share my notes (the others see them read-only)", self)
        self.shareNotes.setObjectName("groupShareNotes")
        self.shareNotes.setToolTip("Unticked later: your notes are taken out of your files at the next sync, "
                                   "and the others stop showing them")
        form.addRow("", self.shareNotes)
        self.tagsBox = QComboBox(self)
        self.tagsBox.setObjectName("groupTags")
        self.tagsBox.setAccessibleName("Tags to share")
        self.tagsBox.addItem("All my tags", "all")
        self.tagsBox.addItem("Only tags named group/…", "group")
        self.tagsBox.setToolTip("Narrowed later: your other tags are taken out of your files at the next sync")
        form.addRow("Tags shared:", self.tagsBox)
        self.bestFirst = QCheckBox("Best first also learns from the others' stars", self)
        self.bestFirst.setObjectName("groupBestFirst")
        form.addRow("", self.bestFirst)
        layout.addLayout(form)
        buttons = QDialogButtonBox(self)
        self.okButton = buttons.addButton("Save" if self.joined else "Join",
                                          QDialogButtonBox.ButtonRole.AcceptRole)
        self.okButton.setObjectName("groupJoin")
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        if self.joined:
            self.leaveButton = buttons.addButton("Leave the group", QDialogButtonBox.ButtonRole.DestructiveRole)
            self.leaveButton.setObjectName("groupLeave")
            self.leaveButton.clicked.connect(self._leave)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        if status is not None:
            self.folderEdit.setText(status.folder)
            self.nameEdit.setText(status.name)
            self.picker.lock()
            self.nameEdit.setReadOnly(True)
            self.shareNotes.setChecked(status.share_notes)
            self.tagsBox.setCurrentIndex(self.tagsBox.findData(status.tags))
            self.bestFirst.setChecked(status.best_first_group)
        self.resize(520, self.sizeHint().height())

    def _leave(self) -> None:
        self.leave_requested = True
        self.accept()

    def folder(self) -> Path:
        return self.picker.folder()

    def name(self) -> str:
        return self.nameEdit.text().strip()

    def tags(self) -> str:
        return str(self.tagsBox.currentData())
