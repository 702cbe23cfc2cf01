import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './createPlaylist';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('creates a playlist with the given name', async () => {
  fetchMock.post('/api/playlists', { status: 201, body: { id: 'p1', name: 'Road Trip' } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/playlist name/i), { target: { value: 'Road Trip' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/create playlist/i)); });

  expect(fetchMock.calls('/api/playlists').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/playlists').body)).toMatchObject({ name: 'Road Trip' });
  expect(screen.getByText('Created playlist: Road Trip')).toBeInTheDocument();
}, 10000);

test('shows an error when the playlist cannot be created', async () => {
  fetchMock.post('/api/playlists', { status: 500, body: { message: 'Database unavailable' } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/playlist name/i), { target: { value: 'Road Trip' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/create playlist/i)); });

  expect(fetchMock.calls('/api/playlists').length).toBe(1);
  expect(screen.getByText(/could not create playlist/i)).toBeInTheDocument();
  expect(screen.queryByText(/created playlist/i)).not.toBeInTheDocument();
}, 10000);
