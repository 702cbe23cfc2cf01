import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './addSongToPlaylist';

const playlists = [
  { id: 'p1', name: 'Chill' },
  { id: 'p2', name: 'Workout' },
];

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('adds the current song to the chosen playlist', async () => {
  fetchMock.get('/api/playlists', playlists);
  fetchMock.post('/api/playlists/p2/tracks', 201);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByText('Add to Workout')); });

  expect(fetchMock.calls('/api/playlists/p2/tracks').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/playlists/p2/tracks').body)).toEqual({ trackId: 't42' });
  expect(screen.getByText('Added to Workout')).toBeInTheDocument();
}, 10000);

test('shows an error when the song cannot be added', async () => {
  fetchMock.get('/api/playlists', playlists);
  fetchMock.post('/api/playlists/p2/tracks', 500);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByText('Add to Workout')); });

  expect(fetchMock.calls('/api/playlists/p2/tracks').length).toBe(1);
  expect(screen.getByText(/could not add song/i)).toBeInTheDocument();
}, 10000);
