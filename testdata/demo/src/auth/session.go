// Package auth keeps server-side sessions: the cookie holds only a random
// id, the session itself lives in the sessions table (ADR 4).
package auth

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"
)

const (
	CookieName  = "ledgerly_session"
	IdleTimeout = 12 * time.Hour
)

// ErrNoSession means the request carries no valid session.
var ErrNoSession = errors.New("auth: no session")

// Store reads and writes sessions.
type Store struct{ DB *sql.DB }

// Start creates a session for userID and sets the cookie. SameSite=Lax, not
// Strict: Strict drops the cookie on the redirect back from the SSO provider.
func (s *Store) Start(ctx context.Context, w http.ResponseWriter, userID string) error {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return fmt.Errorf("auth: session id: %w", err)
	}
	id := base64.RawURLEncoding.EncodeToString(buf)
	_, err := s.DB.ExecContext(ctx,
		`INSERT INTO sessions (id, user_id, last_seen_at) VALUES ($1, $2, now())`, id, userID)
	if err != nil {
		return fmt.Errorf("auth: insert session: %w", err)
	}
	http.SetCookie(w, &http.Cookie{
		Name:     CookieName,
		Value:    id,
		Path:     "/",
		HttpOnly: true,
		Secure:   true,
		SameSite: http.SameSiteLaxMode,
	})
	return nil
}

// User returns the user of the request's session and refreshes its idle timer.
func (s *Store) User(ctx context.Context, r *http.Request) (string, error) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return "", ErrNoSession
	}
	var userID string
	err = s.DB.QueryRowContext(ctx, `
		UPDATE sessions SET last_seen_at = now()
		 WHERE id = $1 AND last_seen_at > now() - $2::interval
		RETURNING user_id`, c.Value, fmt.Sprintf("%d seconds", int(IdleTimeout.Seconds()))).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoSession
	}
	if err != nil {
		return "", fmt.Errorf("auth: load session: %w", err)
	}
	return userID, nil
}

// End deletes the session and clears the cookie.
func (s *Store) End(ctx context.Context, w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(CookieName); err == nil {
		if _, err := s.DB.ExecContext(ctx, `DELETE FROM sessions WHERE id = $1`, c.Value); err != nil {
			return fmt.Errorf("auth: delete session: %w", err)
		}
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Path: "/", MaxAge: -1, HttpOnly: true, Secure: true})
	return nil
}
