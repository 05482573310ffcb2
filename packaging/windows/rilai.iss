; Rilai's Windows installer (Inno Setup 6.3 or newer).
;
; It installs the PyInstaller one-folder bundle (dist\rilai\, made by packaging\build.py:
; rilai.exe, _internal\ with Python, Qt, llama.cpp and the three default models, and
; licenses\) under Program Files (all users) or %LOCALAPPDATA%\Programs (this user only;
; the default, which needs no administrator), with a Start-menu shortcut that carries
; Rilai's AppUserModelID. Nothing is downloaded, at install time or later.
;
; Build (the release workflow does this; see docs/packaging.md):
;   python packaging\build.py
;   iscc /DAppVersion=0.1.0 packaging\windows\rilai.iss
; Optional: /DBundleDir=<the folder holding rilai.exe> (default ..\..\dist\rilai, relative
; to this script) and /DOutputDir=<where the setup goes> (default ..\..\dist).
; Output: Rilai-<version>-windows-x64-setup.exe
;
; Silent install and uninstall (what the workflow's smoke test runs):
;   Rilai-<version>-windows-x64-setup.exe /VERYSILENT /SUPPRESSMSGBOXES /CURRENTUSER /DIR=...
;   unins000.exe /VERYSILENT /SUPPRESSMSGBOXES               (keeps the person's data)
;   unins000.exe /VERYSILENT /SUPPRESSMSGBOXES /REMOVEDATA   (removes it)

#if VER < EncodeVer(6, 3, 0)
  #error Inno Setup 6.3 or newer is needed (ArchitecturesAllowed=x64compatible)
#endif

#ifndef AppVersion
  #error Pass the version: iscc /DAppVersion=0.1.0 packaging\windows\rilai.iss
#endif
#ifndef BundleDir
  #define BundleDir "..\..\dist\rilai"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif

#define AppName "Rilai"
#define AppExe "rilai.exe"
; The same ID the app claims at start-up (rilai_desktop/app/app_identity.py): Windows matches
; the running process to this shortcut, so notifications and the taskbar say "Rilai".
#define AppUserModelID "Rilai.Desktop"
; platformdirs' folders for appname "rilai", appauthor=False (rilai_desktop/paths.py):
; data and config are %LOCALAPPDATA%\rilai, the cache and the logs are its Cache\ and Logs\.
#define DataDirName "rilai"

; The bundle, as an absolute path for the checks below (relative paths are from this script).
#if Copy(BundleDir, 2, 1) == ":" || Copy(BundleDir, 1, 2) == "\\"
  #define BundleAbs BundleDir
#else
  #define BundleAbs AddBackslash(SourcePath) + BundleDir
#endif

#if !FileExists(BundleAbs + "\" + AppExe)
  #error No bundle at BundleDir: run python packaging\build.py first (or pass /DBundleDir=...)
#endif

; llama.cpp's CPU backend (ggml-cpu.dll) is built with MSVC's OpenMP and needs its runtime,
; vcomp140.dll. PyInstaller collects it into the bundle as a dependency of ggml-cpu.dll
; (vcomp140.dll is on PyInstaller's list of VC++ runtime DLLs it copies from System32), so it
; ships app-local beside the other VC++ runtime DLLs (vcruntime140*.dll, msvcp140*.dll) and
; no vc_redist.x64.exe is run. A bundle without it would fail on a PC without the VC++
; runtime, so the setup is not built.
#if !FileExists(BundleAbs + "\_internal\vcomp140.dll") && !FileExists(BundleAbs + "\_internal\llama_cpp\lib\vcomp140.dll")
  #error vcomp140.dll (the OpenMP runtime llama.cpp needs) is not in the bundle: see docs/packaging.md, Windows
#endif

[Setup]
; AppId identifies Rilai to Windows across versions (upgrades, the uninstall entry): never change it.
AppId={{0EEDCD3C-670A-4B69-BF22-33F181E479BD}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=The Rilai Desktop authors
AppComments=A local-first AI companion: memory you can see, moods that fade, no byte leaves the machine.
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; This user by default (no administrator); the dialog offers "all users" (Program Files).
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
; The bundle is x64; x64compatible also admits Windows 11 on Arm (x64 emulation).
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
; Qt 6 needs Windows 10 (1809) or later.
MinVersion=10.0.17763
LicenseFile=..\..\LICENSE
SetupIconFile=..\..\resources\icons\rilai.ico
UninstallDisplayIcon={app}\rilai.ico
UninstallDisplayName={#AppName}
OutputDir={#OutputDir}
OutputBaseFilename=Rilai-{#AppVersion}-windows-x64-setup
; The models (about 1.7 GB) do not compress and are stored as they are ([Files] below);
; everything else is LZMA2. The whole setup stays under Inno's 4.2 GB single-file limit.
Compression=lzma2/normal
SolidCompression=no
LZMAUseSeparateProcess=yes
LZMANumBlockThreads=4
WizardStyle=modern
; A running Rilai (the window, or its tray) holds files in {app}: close it, do not restart it.
CloseApplications=yes
RestartApplications=no
SetupLogging=yes

[Languages]
Name: "en"; MessagesFile: "compiler:Default.isl"

[Messages]
LicenseLabel3=Rilai's own licence is below. The licences of the third-party software and models Rilai carries (Python, Qt, llama.cpp, onnxruntime, the language models and the others) are installed with it, in the licenses folder inside the installation folder.%n%nPlease read the licence and accept it to continue.

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; An upgrade replaces the whole bundle: files an older version had and this one dropped
; must not linger beside the new libraries.
Type: filesandordirs; Name: "{app}\_internal"
Type: filesandordirs; Name: "{app}\licenses"

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Excludes: "*.gguf"; Flags: ignoreversion recursesubdirs createallsubdirs
; The default models (absent from a bundle built with --no-models): stored, not compressed.
Source: "{#BundleDir}\*.gguf"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs nocompression skipifsourcedoesntexist
Source: "..\..\resources\icons\rilai.ico"; DestDir: "{app}"; Flags: ignoreversion

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Parameters: "window"; WorkingDir: "{app}"; IconFilename: "{app}\rilai.ico"; Comment: "Rilai, your local companion"; AppUserModelID: "{#AppUserModelID}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Parameters: "window"; WorkingDir: "{app}"; IconFilename: "{app}\rilai.ico"; Comment: "Rilai, your local companion"; AppUserModelID: "{#AppUserModelID}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Parameters: "window"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[Code]
// Uninstall: keep or remove the person's data. Keeping it is the default (No, the default
// button; and the answer of a silent uninstall with /SUPPRESSMSGBOXES); /REMOVEDATA on the
// uninstaller's command line removes it without asking. The data is this user's:
// %LOCALAPPDATA%\rilai holds the conversations, memory, settings, logs, cache and any model
// installed later. Other users' data on the same PC is theirs and stays.
var
  RemoveData: Boolean;

function DataDir(): String;
begin
  Result := ExpandConstant('{localappdata}\{#DataDirName}');
end;

function HasSwitch(const Name: String): Boolean;
var
  I: Integer;
begin
  Result := False;
  for I := 1 to ParamCount do
    if CompareText(ParamStr(I), Name) = 0 then
    begin
      Result := True;
      Exit;
    end;
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if CurUninstallStep = usUninstall then
  begin
    RemoveData := HasSwitch('/REMOVEDATA');
    if (not RemoveData) and DirExists(DataDir()) then
      RemoveData := SuppressibleMsgBox(
        'Remove your Rilai data too?' + #13#10#13#10 +
        'Your conversations, memory, settings and logs (and any model you installed) are in' + #13#10 +
        DataDir() + #13#10#13#10 +
        'No (the default) keeps them: installing Rilai again finds everything where you left it.' + #13#10 +
        'Yes deletes them now. This cannot be undone.',
        mbConfirmation, MB_YESNO or MB_DEFBUTTON2, IDNO) = IDYES;
  end;
  if (CurUninstallStep = usPostUninstall) and RemoveData and DirExists(DataDir()) then
  begin
    if not DelTree(DataDir(), True, True, True) then
      SuppressibleMsgBox(
        'Some of your Rilai data could not be removed (is Rilai still running?). ' +
        'You can delete the folder yourself:' + #13#10 + DataDir(),
        mbError, MB_OK, IDOK);
  end;
end;
