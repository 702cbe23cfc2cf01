import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './followUser';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('follows the user and updates the button', async () => {
  fetchMock.post('/api/users/jdoe/follow', { status: 200, body: { following: true } });

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: 'Follow' })); });

  expect(fetchMock.calls('/api/users/jdoe/follow').length).toBe(1);
  expect(screen.getByRole('button', { name: 'Following' })).toBeInTheDocument();
}, 10000);

test('stays unfollowed and shows an error when the request fails', async () => {
  fetchMock.post('/api/users/jdoe/follow', 500);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: 'Follow' })); });

  expect(fetchMock.calls('/api/users/jdoe/follow').length).toBe(1);
  expect(screen.getByRole('button', { name: 'Follow' })).toBeInTheDocument();
  expect(screen.getByText(/could not follow user/i)).toBeInTheDocument();
}, 10000);
