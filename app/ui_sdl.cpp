/*
 * ui_sdl.cpp — Dear ImGui on SDL2: the context, SDL events into ImGui's
 * input, and ImGui's draw lists drawn with SDL_RenderGeometryRaw.
 *
 * Debian's libimgui ships SDL2's platform backend but not SDL_Renderer's,
 * and that platform backend reads the mouse from SDL's global state, which
 * an event pushed with SDL_PushEvent (--events, the tests under Xvfb) never
 * moves. So the events are read here, from the events themselves, into
 * ImGuiIO: the same input whether a hand or a script gave it.
 *
 * Mouse events always reach the app's routing too (input over a window is
 * the app's: input.c), except motion while a window is dragged or a widget
 * held, which the scene never sees as a pointer.
 *
 * ImGuiIO 1.86 holds a key or a button as down or up at each NewFrame, so a
 * press and release that arrive between two frames would never be seen:
 * such a release waits until the frame that saw the press has run
 * (ui_frame calls ui_late_releases after it).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include <imgui_internal.h> /* GImGui->MovingWindow: a window being dragged */

#include "ui_internal.h"

#define UI_FONT_PX 15.0f

static void map_keys(ImGuiIO &io)
{
    io.KeyMap[ImGuiKey_Tab] = SDL_SCANCODE_TAB;
    io.KeyMap[ImGuiKey_LeftArrow] = SDL_SCANCODE_LEFT;
    io.KeyMap[ImGuiKey_RightArrow] = SDL_SCANCODE_RIGHT;
    io.KeyMap[ImGuiKey_UpArrow] = SDL_SCANCODE_UP;
    io.KeyMap[ImGuiKey_DownArrow] = SDL_SCANCODE_DOWN;
    io.KeyMap[ImGuiKey_PageUp] = SDL_SCANCODE_PAGEUP;
    io.KeyMap[ImGuiKey_PageDown] = SDL_SCANCODE_PAGEDOWN;
    io.KeyMap[ImGuiKey_Home] = SDL_SCANCODE_HOME;
    io.KeyMap[ImGuiKey_End] = SDL_SCANCODE_END;
    io.KeyMap[ImGuiKey_Insert] = SDL_SCANCODE_INSERT;
    io.KeyMap[ImGuiKey_Delete] = SDL_SCANCODE_DELETE;
    io.KeyMap[ImGuiKey_Backspace] = SDL_SCANCODE_BACKSPACE;
    io.KeyMap[ImGuiKey_Space] = SDL_SCANCODE_SPACE;
    io.KeyMap[ImGuiKey_Enter] = SDL_SCANCODE_RETURN;
    io.KeyMap[ImGuiKey_Escape] = SDL_SCANCODE_ESCAPE;
    io.KeyMap[ImGuiKey_KeyPadEnter] = SDL_SCANCODE_KP_ENTER;
    io.KeyMap[ImGuiKey_A] = SDL_SCANCODE_A;
    io.KeyMap[ImGuiKey_C] = SDL_SCANCODE_C;
    io.KeyMap[ImGuiKey_V] = SDL_SCANCODE_V;
    io.KeyMap[ImGuiKey_X] = SDL_SCANCODE_X;
    io.KeyMap[ImGuiKey_Y] = SDL_SCANCODE_Y;
    io.KeyMap[ImGuiKey_Z] = SDL_SCANCODE_Z;
}

/* The look: ImGui's dark style, a little see-through, the app's font. */
static void style(void)
{
    ImGui::StyleColorsDark();
    ImGuiStyle &s = ImGui::GetStyle();
    s.WindowRounding = 4.0f;
    s.FrameRounding = 2.0f;
    s.WindowPadding = ImVec2(7.0f, 5.0f);
    s.ItemSpacing = ImVec2(6.0f, 3.0f);
    s.WindowMinSize = ImVec2(32.0f, 16.0f); /* the timeline is a 30-pixel strip */
    s.Colors[ImGuiCol_WindowBg].w = 0.88f;
}

/* The font atlas as an SDL texture (ImGui's texture id is the SDL_Texture). */
static bool font_texture(ui *u)
{
    ImGuiIO &io = ImGui::GetIO();
    FILE *f = fopen(STEER_FONT_PATH, "rb"); /* ImGui asserts on a missing file */
    if (f != NULL) {
        fclose(f);
        io.Fonts->AddFontFromFileTTF(STEER_FONT_PATH, UI_FONT_PX);
    } else {
        fprintf(stderr, "steer: cannot open the font %s; the windows use ImGui's own\n", STEER_FONT_PATH);
        io.Fonts->AddFontDefault();
    }
    unsigned char *pixels = NULL;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    u->font_tex = SDL_CreateTexture(u->r, SDL_PIXELFORMAT_RGBA32, SDL_TEXTUREACCESS_STATIC, w, h);
    if (u->font_tex == NULL || SDL_UpdateTexture(u->font_tex, NULL, pixels, 4 * w) != 0) {
        fprintf(stderr, "steer: cannot make the windows' font texture: %s\n", SDL_GetError());
        return false;
    }
    SDL_SetTextureBlendMode(u->font_tex, SDL_BLENDMODE_BLEND);
    io.Fonts->SetTexID((ImTextureID)u->font_tex);
    return true;
}

/* ImGui's copy and paste through SDL's clipboard (the text got is kept
 * until the next paste: ImGui reads it after the call). */
static const char *get_clipboard(void *user)
{
    ui *u = (ui *)user;
    SDL_free(u->clipboard);
    u->clipboard = SDL_GetClipboardText();
    return u->clipboard;
}

static void set_clipboard(void *user, const char *text)
{
    (void)user;
    SDL_SetClipboardText(text);
}

extern "C" ui *ui_new(SDL_Renderer *r)
{
    ui *u = IM_NEW(ui)();
    u->r = r;
    u->ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(u->ctx);
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = NULL; /* the layout is the app's, not a file's */
    io.LogFilename = NULL;
    io.ConfigWindowsMoveFromTitleBarOnly = true; /* a drag inside a window is the window's */
    io.BackendPlatformName = "steer (SDL2 events)";
    io.BackendRendererName = "steer (SDL_RenderGeometry)";
    io.GetClipboardTextFn = get_clipboard;
    io.SetClipboardTextFn = set_clipboard;
    io.ClipboardUserData = u;
    map_keys(io);
    style();
    if (!font_texture(u)) {
        ui_free(u);
        return NULL;
    }
    return u;
}

extern "C" void ui_free(ui *u)
{
    if (u == NULL)
        return;
    ImGui::DestroyContext(u->ctx);
    if (u->font_tex != NULL)
        SDL_DestroyTexture(u->font_tex);
    SDL_free(u->clipboard);
    IM_DELETE(u);
}

/* A press (down) or release of key or button i, kept for one frame when both come between two frames. */
static void press(bool *down, bool *fresh, bool *late_up, int i, bool is_down)
{
    if (is_down) {
        down[i] = true;
        fresh[i] = true;
        late_up[i] = false;
    } else if (fresh[i]) {
        late_up[i] = true;
    } else {
        down[i] = false;
    }
}

void ui_late_releases(ui *u)
{
    ImGuiIO &io = ImGui::GetIO();
    for (int i = 0; i < UI_KEYS; i++) {
        if (u->key_late_up[i])
            io.KeysDown[i] = false;
        u->key_new[i] = u->key_late_up[i] = false;
    }
    for (int i = 0; i < UI_BUTTONS; i++) {
        if (u->button_late_up[i])
            io.MouseDown[i] = false;
        u->button_new[i] = u->button_late_up[i] = false;
    }
}

static int button_index(Uint8 b)
{
    switch (b) {
    case SDL_BUTTON_LEFT: return 0;
    case SDL_BUTTON_RIGHT: return 1;
    case SDL_BUTTON_MIDDLE: return 2;
    case SDL_BUTTON_X1: return 3;
    default: return 4;
    }
}

/* The mouse into io; never the windows' alone (the caller's routing decides). */
static void mouse_event(ui *u, ImGuiIO &io, const SDL_Event *e)
{
    switch (e->type) {
    case SDL_MOUSEMOTION:
        io.MousePos = ImVec2((float)e->motion.x, (float)e->motion.y);
        break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        io.MousePos = ImVec2((float)e->button.x, (float)e->button.y);
        press(io.MouseDown, u->button_new, u->button_late_up, button_index(e->button.button),
              e->type == SDL_MOUSEBUTTONDOWN);
        break;
    case SDL_MOUSEWHEEL:
        io.MouseWheel += (float)e->wheel.y;
        io.MouseWheelH -= (float)e->wheel.x;
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE)
            io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        break;
    default:
        break;
    }
}

extern "C" bool ui_event(ui *u, app *a, const SDL_Event *e)
{
    if (u == NULL)
        return false;
    ImGui::SetCurrentContext(u->ctx);
    ImGuiIO &io = ImGui::GetIO();
    if (console_handle(a, e))
        return true; /* Esc or ` closed the console; the text of the ` that opened it */
    if (a->console_open && !u->console_active && console_type(a, e))
        return true; /* the console's line before its field has the keyboard */
    bool typing = a->console_open || io.WantTextInput;
    if (e->type == SDL_TEXTINPUT) {
        if (typing)
            io.AddInputCharactersUTF8(e->text.text);
        return typing;
    }
    if (e->type == SDL_KEYDOWN || e->type == SDL_KEYUP) {
        int sc = (int)e->key.keysym.scancode;
        if (sc >= 0 && sc < UI_KEYS && (typing || e->type == SDL_KEYUP))
            press(io.KeysDown, u->key_new, u->key_late_up, sc, e->type == SDL_KEYDOWN);
        SDL_Keymod mod = (SDL_Keymod)e->key.keysym.mod;
        io.KeyShift = (mod & KMOD_SHIFT) != 0;
        io.KeyCtrl = (mod & KMOD_CTRL) != 0;
        io.KeyAlt = (mod & KMOD_ALT) != 0;
        io.KeySuper = (mod & KMOD_GUI) != 0;
        return typing;
    }
    mouse_event(u, io, e);
    /* a window being dragged or a widget held (a scroll bar, an edit's
     * selection): the pointer is the window's until the button is let go */
    bool held = GImGui->MovingWindow != NULL || ImGui::IsAnyItemActive();
    return e->type == SDL_MOUSEMOTION && held && io.WantCaptureMouse;
}

/* ------------------------------------------------------------------ drawing */

/* A command's triangles split in two index lists: those of plain colour
 * (every corner at the atlas's white pixel: panels, frames, lines) and the
 * rest (glyphs). SDL's software renderer fills the first without sampling
 * the texture, several times faster; ImGui draws a window's backgrounds
 * before its text, so drawing each command's plain triangles first keeps
 * what is on top on top. */
static void split(ui *u, const ImDrawList *list, const ImDrawCmd *cmd, ImVec2 white)
{
    u->plain.resize(0);
    u->textured.resize(0);
    const ImDrawIdx *idx = list->IdxBuffer.Data + cmd->IdxOffset;
    const ImDrawVert *v = list->VtxBuffer.Data + cmd->VtxOffset;
    for (unsigned k = 0; k + 2 < cmd->ElemCount; k += 3) {
        bool plain = true;
        for (unsigned j = 0; j < 3 && plain; j++) {
            const ImVec2 uv = v[idx[k + j]].uv;
            plain = uv.x == white.x && uv.y == white.y;
        }
        ImVector<int> &out = plain ? u->plain : u->textured;
        for (unsigned j = 0; j < 3; j++)
            out.push_back((int)idx[k + j]);
    }
}

/* The command's clip rectangle in output pixels; false when nothing shows. */
static bool clip_rect(const ImDrawCmd *cmd, const ImDrawData *d, int out_w, int out_h, SDL_Rect *clip)
{
    float x0 = fmaxf(cmd->ClipRect.x - d->DisplayPos.x, 0.0f);
    float y0 = fmaxf(cmd->ClipRect.y - d->DisplayPos.y, 0.0f);
    float x1 = fminf(cmd->ClipRect.z - d->DisplayPos.x, (float)out_w);
    float y1 = fminf(cmd->ClipRect.w - d->DisplayPos.y, (float)out_h);
    if (x1 <= x0 || y1 <= y0)
        return false;
    *clip = {(int)x0, (int)y0, (int)(x1 - (int)x0 + 0.999f), (int)(y1 - (int)y0 + 0.999f)};
    return true;
}

void ui_render_draw_data(ui *u, ImDrawData *d)
{
    SDL_Renderer *r = u->r;
    int out_w = 0, out_h = 0;
    SDL_GetRendererOutputSize(r, &out_w, &out_h);
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    const ImVec2 white = ImGui::GetIO().Fonts->TexUvWhitePixel;
    const int stride = (int)sizeof(ImDrawVert);
    for (int n = 0; n < d->CmdListsCount; n++) {
        const ImDrawList *list = d->CmdLists[n];
        for (int i = 0; i < list->CmdBuffer.Size; i++) {
            const ImDrawCmd *cmd = &list->CmdBuffer[i];
            SDL_Rect clip;
            if (cmd->UserCallback != NULL || !clip_rect(cmd, d, out_w, out_h, &clip))
                continue; /* the app adds no callbacks */
            SDL_RenderSetClipRect(r, &clip);
            split(u, list, cmd, white);
            const ImDrawVert *v = list->VtxBuffer.Data + cmd->VtxOffset;
            int nv = list->VtxBuffer.Size - (int)cmd->VtxOffset;
            /* ImU32 colours are R, G, B, A in memory: SDL_Color's layout */
            const SDL_Color *col = (const SDL_Color *)&v->col;
            if (u->plain.Size > 0)
                SDL_RenderGeometryRaw(r, NULL, &v->pos.x, stride, col, stride, NULL, 0, nv, u->plain.Data,
                                      u->plain.Size, (int)sizeof(int));
            if (u->textured.Size > 0)
                SDL_RenderGeometryRaw(r, (SDL_Texture *)cmd->GetTexID(), &v->pos.x, stride, col, stride, &v->uv.x,
                                      stride, nv, u->textured.Data, u->textured.Size, (int)sizeof(int));
        }
    }
    SDL_RenderSetClipRect(r, NULL);
}
