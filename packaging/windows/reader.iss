; Inno Setup 6 script for Reader: per-user install, no admin rights needed.
; Built by packaging/build.py:
;   ISCC /DAppVersion=0.1.0 /DSourceDir=<dist>\Reader /O<dist> packaging\windows\reader.iss
; Installs into %LOCALAPPDATA%\Programs\Reader, adds a Start-menu entry and an uninstaller.
; The library (%LOCALAPPDATA%\Reader) is never touched by install or uninstall.

#define AppName "Reader"
#define AppExeName "Reader.exe"
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef SourceDir
  #define SourceDir "..\dist\Reader"
#endif

[Setup]
; Keep AppId fixed forever: upgrades and the uninstaller find earlier installs by it.
AppId={{EB574FD1-41F4-413E-8C1D-CDB72AEA5DE4}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Reader developers
DefaultDirName={localappdata}\Programs\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
DisableDirPage=auto
PrivilegesRequired=lowest
OutputBaseFilename={#AppName}-{#AppVersion}-setup
SetupIconFile=..\..\resources\reader.ico
UninstallDisplayIcon={app}\{#AppExeName}
UninstallDisplayName={#AppName} {#AppVersion}
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesAssociations=yes
CloseApplications=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "associate"; Description: "Offer Reader in ""Open with"" for .txt and .jsonl files"; GroupDescription: "File associations:"; Flags: unchecked

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[InstallDelete]
; An upgrade replaces the whole app folder so no stale DLLs or plugins survive.
Type: filesandordirs; Name: "{app}\_internal"

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExeName}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExeName}"; Tasks: desktopicon

[Registry]
; Per-user (HKA = HKCU with PrivilegesRequired=lowest). OpenWithProgids adds Reader to the
; "Open with" list without taking over .txt from the user's editor.
Root: HKA; Subkey: "Software\Classes\Reader.AbstractsFile"; ValueType: string; ValueName: ""; ValueData: "Abstracts file"; Flags: uninsdeletekey; Tasks: associate
Root: HKA; Subkey: "Software\Classes\Reader.AbstractsFile\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExeName},0"; Tasks: associate
Root: HKA; Subkey: "Software\Classes\Reader.AbstractsFile\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExeName}"" ""%1"""; Tasks: associate
Root: HKA; Subkey: "Software\Classes\.txt\OpenWithProgids"; ValueType: string; ValueName: "Reader.AbstractsFile"; ValueData: ""; Flags: uninsdeletevalue; Tasks: associate
Root: HKA; Subkey: "Software\Classes\.jsonl\OpenWithProgids"; ValueType: string; ValueName: "Reader.AbstractsFile"; ValueData: ""; Flags: uninsdeletevalue; Tasks: associate

[Run]
Filename: "{app}\{#AppExeName}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent
